import { LatencySummary, summarize } from '../../bench/stats';
import type { AskedQuestion } from './ask-questions';
import { Bm25Ranker } from './bm25';
import { Question } from './corpus';
import { allGoldAt, mean, recallAt, round3 } from './metrics';

/** Recall at each k of the run, and over everything returned (`all`). */
export type RecallByK = Record<string, number>;

export interface Spread {
  mean: number;
  p50: number;
  max: number;
}

export interface ModeResult {
  mode: string;
  questions: number;
  /** Per question, the fraction of its gold titles among the first k chunks; averaged. */
  recall: RecallByK;
  /** Per question, 1 when all its gold titles are among the first k chunks; averaged. */
  all_gold: RecallByK;
  /** The mode's recall at k over BM25's recall at k (the `bm25` analyzer); `all`: over BM25 given as many passages per question as the mode returned chunks. */
  ratio_to_bm25: RecallByK;
  /** BM25's recall with, per question, as many passages as the mode returned chunks. */
  bm25_same_count: number;
  chunks: Spread;
  tokens: Spread;
  latency_ms: LatencySummary;
  /** metadata.mode of the replies: how often each mode was actually searched. */
  mode_used: Record<string, number>;
  /** Replies without context, by metadata.no_answer_reason. */
  no_answer: Record<string, number>;
  /** Dashboard answers by the offline local answerer (null: not asked). */
  answers: { asked: number; containment: number; latency_ms: LatencySummary } | null;
  /** Per `max_total_tokens` asked: recall over every chunk of the bounded context. */
  budget_recall: RecallByK;
}

export interface BaselineResult {
  name: string;
  description: string;
  k1: number;
  b: number;
  recall: RecallByK;
  all_gold: RecallByK;
  /** Per token budget: recall of BM25's best passages while their text fits it (the whole budget is passages). */
  budget_recall: RecallByK;
}

/** Context budgets to score: the tokens each, and the tokens of each passage by title. */
export interface TokenBudgets {
  tokens: number[];
  passageTokens: Map<string, number>;
}

const keyOf = (k: number) => (Number.isFinite(k) ? String(k) : 'all');

function byK(ks: number[], value: (k: number) => number): RecallByK {
  return Object.fromEntries(ks.map((k) => [keyOf(k), round3(value(k))]));
}

function spread(values: number[]): Spread {
  const s = summarize(values);
  return { mean: Math.round(s.mean * 10) / 10, p50: s.p50, max: s.max };
}

function tally(values: Array<string | null>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) if (v !== null) out[v] = (out[v] ?? 0) + 1;
  return out;
}

export function scoreBaseline(
  ranker: Bm25Ranker,
  questions: Question[],
  ks: number[],
  budgets: TokenBudgets = { tokens: [], passageTokens: new Map() },
): BaselineResult & { rankings: Map<string, string[]> } {
  const rankings = new Map(questions.map((q) => [q.id, ranker.rank(q.question)]));
  const avg = (metric: typeof recallAt, k: number) => mean(questions.map((q) => metric(rankings.get(q.id)!, q.supporting_titles, k)));
  const withinBudget = (titles: string[], budget: number) => {
    let used = 0;
    const kept = [];
    for (const title of titles) {
      used += budgets.passageTokens.get(title) ?? 0;
      if (used > budget) break;
      kept.push(title);
    }
    return kept;
  };
  return {
    name: ranker.analyzer.name,
    description: ranker.analyzer.description,
    k1: 1.2,
    b: 0.75,
    recall: byK(ks, (k) => avg(recallAt, k)),
    all_gold: byK(ks, (k) => avg(allGoldAt, k)),
    budget_recall: Object.fromEntries(
      budgets.tokens.map((budget) => [
        String(budget),
        round3(mean(questions.map((q) => recallAt(withinBudget(rankings.get(q.id)!, budget), q.supporting_titles, Infinity)))),
      ]),
    ),
    rankings,
  };
}

export function scoreMode(mode: string, asked: AskedQuestion[], questions: Question[], ks: number[], bm25: ReturnType<typeof scoreBaseline>): ModeResult {
  const gold = new Map(questions.map((q) => [q.id, q.supporting_titles]));
  const avg = (metric: typeof recallAt, k: number) => mean(asked.map((a) => metric(a.titles, gold.get(a.id)!, k)));
  const withAll = [...ks, Infinity];
  const recall = byK(withAll, (k) => avg(recallAt, k));
  const sameCount = mean(asked.map((a) => recallAt(bm25.rankings.get(a.id)!, gold.get(a.id)!, a.chunks)));
  const ratio = (ours: number, theirs: number) => (theirs > 0 ? Math.round((ours / theirs) * 100) / 100 : Number.NaN);
  const answered = asked.filter((a) => a.answer_contains !== null);
  return {
    mode,
    questions: asked.length,
    recall,
    all_gold: byK(withAll, (k) => avg(allGoldAt, k)),
    ratio_to_bm25: {
      ...Object.fromEntries(ks.map((k) => [keyOf(k), ratio(recall[keyOf(k)], bm25.recall[keyOf(k)])])),
      all: ratio(recall.all, sameCount),
    },
    bm25_same_count: round3(sameCount),
    chunks: spread(asked.map((a) => a.chunks)),
    tokens: spread(asked.map((a) => a.tokens)),
    latency_ms: summarize(asked.map((a) => a.latency_ms)),
    mode_used: tally(asked.map((a) => a.mode_used)),
    no_answer: tally(asked.map((a) => a.no_answer_reason)),
    budget_recall: Object.fromEntries(
      Object.keys(asked[0]?.budget_titles ?? {}).map((budget) => [
        budget,
        round3(mean(asked.map((a) => recallAt(a.budget_titles[budget], gold.get(a.id)!, Infinity)))),
      ]),
    ),
    answers:
      answered.length === 0
        ? null
        : {
            asked: answered.length,
            containment: round3(answered.filter((a) => a.answer_contains).length / answered.length),
            latency_ms: summarize(answered.map((a) => a.answer_latency_ms!)),
          },
  };
}
