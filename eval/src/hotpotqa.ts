import { execFileSync } from 'node:child_process';
import { describeMachine } from '../../bench/report';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { askQuestions, AskedQuestion } from './ask-questions';
import { Bm25Ranker, ENGLISH_ANALYZER, PLAIN_ANALYZER } from './bm25';
import { countTokens } from '../../libs/llm/src/metering/token-counter';
import { EvalSet, loadEvalSet, passagesHash, passageText, sampleEvalSet } from './corpus';
import { apiKeyFor, ingestPassages, provisionTenant } from './ingestion';
import { LociClient } from './loci-client';
import { ingestionTuning, startLociServer } from './loci-server';
import { CORPUS_LICENSE, EvalReport } from './report';
import { scoreBaseline, scoreMode } from './scoring';
import { finishedManifest, ingestionFingerprint, locateStoreFor, StoreKind } from './store-cache';

export interface HotpotqaOptions {
  repoRoot: string;
  corpusFolder: string;
  cacheDir: string;
  store: StoreKind;
  /** PostgreSQL server for --store postgres (a database per cache key is made on it). */
  databaseUrl?: string;
  limit?: number;
  /** With a limit: passages besides the gold ones (a fixed sample). */
  distractors: number;
  modes: RetrievalMode[];
  topK: number[];
  /** Context budgets (`max_total_tokens`) each question is also asked at, beside BM25 at the same budget. */
  budgets: number[];
  answers: boolean;
  reuse: boolean;
  fresh: boolean;
  log: (line: string) => void;
}

/**
 * The HotpotQA-100 development eval: the passages ingested through the real pipeline (or the
 * store of an earlier run with the same key), every question asked in each mode, and BM25 over
 * the same passages computed in the same run as the baseline.
 */
export function runHotpotqa(options: HotpotqaOptions): Promise<EvalReport> {
  const set = sampleEvalSet(loadEvalSet(options.corpusFolder), options.limit, options.distractors);
  return runPassageEval(options, set, { eval: 'hotpotqa', license: CORPUS_LICENSE });
}

/**
 * Any set of passages and questions with gold passages (HotpotQA's, or the generated
 * conversations' sessions): ingested through the real pipeline, asked in each mode, beside BM25
 * over the same passages.
 */
export async function runPassageEval(options: Omit<HotpotqaOptions, 'corpusFolder'>, set: EvalSet, about: { eval: EvalReport['eval']; license: string }): Promise<EvalReport> {
  const started = Date.now();
  const log = options.log;
  const corpusSha = passagesHash(set.passages);
  const fingerprint = ingestionFingerprint(options.repoRoot, ingestionTuning());
  const location = await locateStoreFor(options, corpusSha, fingerprint);
  log(
    location.manifest
      ? `reusing the ${location.store} store ${location.key} (ingested ${location.manifest.created_at}${location.stale ? ', by other ingestion code: --reuse' : ''})`
      : `ingesting ${set.passages.length} passages into a new ${location.store} store ${location.key}`,
  );

  // A passage costs the tokens of its text as a chunk of it would (title line included).
  const budgets = { tokens: options.budgets, passageTokens: new Map(set.passages.map((p) => [p.title, countTokens(passageText(p))])) };
  const baselines = [ENGLISH_ANALYZER, PLAIN_ANALYZER].map((a) => scoreBaseline(new Bm25Ranker(set.passages, a), set.questions, options.topK, budgets));
  const server = await startLociServer({ dataDir: location.dataDir, databaseUrl: location.databaseUrl });
  try {
    const root = new LociClient(server.url);
    let manifest = location.manifest;
    if (!manifest) {
      const tenant = await provisionTenant(root);
      const ingestion = await ingestPassages(root.as({ apiKey: await apiKeyFor(root, tenant.tenantId) }), set.passages, { log });
      manifest = finishedManifest(location, { corpusSha, fingerprint, tenant, ingestion });
    }
    const ingestion = manifest.ingestion;
    log(`store: ${ingestion.processed} documents processed, ${ingestion.failed} failed, ${ingestion.chunks} chunks; ingestion took ${ingestion.elapsed_s} s (${ingestion.passages_per_s} passages/s)`);

    const asked: AskedQuestion[] = [];
    const modes = [];
    for (const mode of options.modes) {
      // A fresh session per mode: a full mode can outlast a token's lifetime.
      const user = root.as({ token: await root.login(manifest.user.email, manifest.user.password) });
      const t0 = Date.now();
      const answers = await askQuestions(user, set.questions, mode, { answers: options.answers, budgets: options.budgets, log });
      asked.push(...answers);
      const result = scoreMode(mode, answers, set.questions, options.topK, baselines[0]);
      modes.push(result);
      log(`${mode}: R@${options.topK.join('/')} ${options.topK.map((k) => result.recall[String(k)]).join('/')} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }

    return {
      eval: about.eval,
      created_at: new Date(started).toISOString(),
      corpus: { folder: set.folder, passages: set.passages.length, questions: set.questions.length, sha256: corpusSha, license: about.license },
      options: {
        limit: options.limit ?? null,
        distractors: options.limit === undefined ? null : options.distractors,
        modes: options.modes,
        top_k: options.topK,
        budgets: options.budgets,
        answers: options.answers,
      },
      caller: 'dashboard-jwt',
      embedder: server.embedder,
      store: {
        kind: location.store,
        key: location.key,
        reused: location.manifest !== undefined,
        stale: location.stale,
        ingestion_fingerprint: manifest.ingestion_fingerprint,
        ingestion,
      },
      machine: await describeMachine(location.databaseUrl),
      source: describeCheckout(options.repoRoot),
      baselines: baselines.map(({ rankings: _rankings, ...b }) => b),
      modes,
      questions: asked,
      elapsed_s: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await server.close();
  }
}

/** HEAD and the uncommitted code paths of the checkout, so a result says what it measured. */
export function describeCheckout(repoRoot: string): EvalReport['source'] {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const uncommitted = git('status', '--porcelain', '--', 'apps', 'libs', 'migrations', 'eval/src')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3));
    return { commit: git('rev-parse', 'HEAD').trim(), uncommitted };
  } catch {
    return { commit: null, uncommitted: [] };
  }
}
