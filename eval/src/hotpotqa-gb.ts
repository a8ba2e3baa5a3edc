import type { INestApplication } from '@nestjs/common';
import pLimit from 'p-limit';
import { GraphsRepository } from '@loci/db';
import { OwnKeysService } from '@loci/llm';
import { GbPassage, GbQueryService } from '@loci/retrieval';
import { describeMachine } from '../../bench/report';
import { summarize } from '../../bench/stats';
import { loadSettings } from '../../libs/config/src/settings';
import { chunkText, needsChunking } from '../../libs/ingest/src/chunking';
import { BundleDocument, bundlePassages, bundlesHash, contextTitles, heldChunk, HeldChunk, titlesWithinChunks } from './bundles';
import { loadEvalSet, Question, sampleEvalSet } from './corpus';
import { apiKeyFor, provisionTenant } from './ingestion';
import { GbPassageView, LociClient } from './loci-client';
import { ingestionTuning, startLociServer } from './loci-server';
import { containsAnswer, mean, recallAt, round3 } from './metrics';
import { CORPUS_LICENSE } from './report';
import { finishedManifest, ingestionFingerprint, IngestionSummary, locateStoreFor, StoreKind } from './store-cache';
import { describeCheckout, HotpotqaOptions } from './hotpotqa';
import { rankChunksByBm25, rankPassagesByBm25, Ranked } from './hotpotqa-bundles';

/**
 * The gb surface of the HotpotQA-100 eval (`--surface gb`): the passages remembered N to a text
 * through POST /v1/gb/remember as one end user's memory (texts longer than a chunk are chunked,
 * and only chunked texts have passages, per the gb contract), every question asked through
 * POST /v1/gb/query. Scored per question:
 *
 * - `gb-context`: the passages retrieval gave the answerer (the contract's step 2: best 3 with
 *   their text, up to 5 more with their summary), read in process from the same service the
 *   route runs (`GbQueryService.retrieve`), in the order given;
 * - `gb-evidence`: the passages of the response's `evidence` (those the answerer cited), each
 *   mapped through its chunk (`parent_id`, `index`) to the text and the passages it holds;
 * - `gb-provenance`: the passages of the texts the evidence's edges came from (`artifact_id`):
 *   coarse, a text holds N passages, so it says whether the facts cited lead back to the right
 *   texts at all, not to the right passages;
 *
 * beside BM25 over the same chunks (cut by the same chunker with the same settings) and over the
 * passages, in the same run. A chunk holds a passage when it holds at least half of its text (bundles.ts).
 */
export interface GbOptions extends Omit<HotpotqaOptions, 'answers' | 'modes' | 'budgets'> {
  /** Passages to a remembered text. */
  docsOf: number;
}

/** The end user whose memory the texts are remembered in. */
export const GB_EVAL_USER = 'eval-hotpotqa-user';

export interface GbRankerResult {
  ranker: string;
  /** Gold passages held by the first k passages (chunks), averaged over the questions. */
  recall: Record<string, number>;
  /** The same over everything returned (NaN for a baseline, which ranks everything). */
  recall_all: number;
  /** Passages returned a question, and how many of them with their text. */
  passages_mean: number;
  with_text_mean: number;
  /** Questions with no passage at all. */
  no_passages: number;
}

export interface GbReport {
  eval: 'hotpotqa-gb';
  created_at: string;
  corpus: { folder: string; passages: number; questions: number; texts: number; docs_of: number; sha256: string; license: string };
  chunking: { chunk_tokens: number; overlap_tokens: number; chunked_texts: number; chunks: number };
  options: { limit: number | null; top_k: number[] };
  embedder: string;
  /** The LOCI_GB_* settings the server ran with (the contract's numbers unless set). */
  gb_settings: Record<string, string>;
  store: { kind: StoreKind; key: string; reused: boolean; stale: boolean; ingestion: IngestionSummary };
  machine: Awaited<ReturnType<typeof describeMachine>>;
  source: ReturnType<typeof describeCheckout>;
  rankers: GbRankerResult[];
  /** POST /v1/gb/query, answer included (the offline extractive answerer). */
  latency_ms: { p50: number; p95: number };
  /** Retrieval alone (the contract's steps 1–2, in process, the question embedded again), without the answer. */
  retrieval_ms: { p50: number; p95: number };
  /** The answer contains the gold answer (SQuAD normalisation), over the questions. */
  answer_contains_gold: number;
  /** Returned passages whose chunk could not be placed in its text (should be 0). */
  unlocated: number;
  questions: Array<{
    id: string;
    answer: string;
    contains_gold: boolean;
    latency_ms: number;
    retrieval_ms: number;
    context: Array<{ text_name: string; index: number; with_text: boolean; titles: string[] }>;
    evidence: Array<{ text_name: string; index: number; titles: string[] }>;
    provenance_texts: string[];
  }>;
  elapsed_s: number;
}

export async function runHotpotqaGb(options: GbOptions): Promise<GbReport> {
  const started = Date.now();
  const log = options.log;
  const set = sampleEvalSet(loadEvalSet(options.corpusFolder), options.limit, options.distractors);
  const texts = bundlePassages(set.passages, options.docsOf);
  const corpusSha = bundlesHash(texts);
  const tuning = ingestionTuning();
  const fingerprint = ingestionFingerprint(options.repoRoot, tuning);
  const { chunkTokens, chunkOverlapTokens } = loadSettings(tuning).ingest;
  // Where each text's chunks lie, as the pipeline cuts them (same chunker, same settings).
  const chunksOf = new Map(
    texts.map((t) => [
      t.name,
      needsChunking(t.text, chunkTokens) ? chunkText(t.text, { maxTokens: chunkTokens, overlapTokens: chunkOverlapTokens }).map((c) => heldChunk(t, c.startOffset, c.text)) : [],
    ]),
  );
  const location = await locateStoreFor(options, corpusSha, fingerprint);
  log(
    `${texts.length} texts of ${options.docsOf} passages, chunks of ${chunkTokens} tokens: ` +
      (location.manifest ? `reusing the ${location.store} store ${location.key}` : `remembering into a new ${location.store} store ${location.key}`),
  );

  const baselines: Array<[string, Ranked[]]> = [
    ['bm25-chunks', rankChunksByBm25(texts, set.questions, chunkTokens, chunkOverlapTokens)],
    ['bm25-passages', rankPassagesByBm25(set, set.questions)],
  ];
  const server = await startLociServer({ dataDir: location.dataDir, databaseUrl: location.databaseUrl });
  let manifest = location.manifest;
  const asked: Asked[] = [];
  try {
    const root = new LociClient(server.url);
    if (!manifest?.gb) {
      const tenant = await provisionTenant(root);
      const client = root.as({ apiKey: await apiKeyFor(root, tenant.tenantId) });
      const { artifacts, ingestion } = await rememberTexts(client, texts, log);
      ingestion.chunks = [...chunksOf.values()].reduce((n, c) => n + c.length, 0);
      manifest = finishedManifest(location, { corpusSha, fingerprint, tenant, ingestion }, { gb: { user_id: GB_EVAL_USER, artifacts } });
    }
    const gb = manifest.gb!;
    const client = root.as({ apiKey: await apiKeyFor(root, manifest.tenant_id) });
    const byArtifact = new Map(Object.entries(gb.artifacts).map(([name, id]) => [id, texts.find((t) => t.name === name)!]));
    const context = await contextReader(server.app, manifest.tenant_id, gb.user_id);
    for (const q of set.questions) {
      const t0 = performance.now();
      const reply = await client.gbQuery(gb.user_id, q.question);
      const latencyMs = performance.now() - t0;
      const t1 = performance.now();
      const given = await context(q.question);
      const retrievalMs = performance.now() - t1;
      asked.push({
        question: q,
        answer: reply.answer,
        latencyMs,
        retrievalMs,
        evidence: reply.evidence.passages.map((p) => placePassage(p, byArtifact, chunksOf)),
        context: given.map((p) => ({
          ...placePassage({ parent_id: p.chunk.documentId, index: p.chunk.index, text: p.text }, byArtifact, chunksOf),
          withText: p.text !== undefined,
        })),
        provenance: [...new Set(reply.evidence.edges.flatMap((x) => (x.artifact_id === undefined ? [] : [byArtifact.get(x.artifact_id)])))].filter(
          (t): t is BundleDocument => t !== undefined,
        ),
      });
    }
    log(`asked ${asked.length} questions`);
  } finally {
    await server.close();
  }

  const gold = new Map(set.questions.map((q) => [q.id, q.supporting_titles]));
  const latency = summarize(asked.map((a) => a.latencyMs));
  const retrieval = summarize(asked.map((a) => a.retrievalMs));
  return {
    eval: 'hotpotqa-gb',
    created_at: new Date(started).toISOString(),
    corpus: { folder: set.folder, passages: set.passages.length, questions: set.questions.length, texts: texts.length, docs_of: options.docsOf, sha256: corpusSha, license: CORPUS_LICENSE },
    chunking: {
      chunk_tokens: chunkTokens,
      overlap_tokens: chunkOverlapTokens,
      chunked_texts: [...chunksOf.values()].filter((c) => c.length > 0).length,
      chunks: [...chunksOf.values()].reduce((n, c) => n + c.length, 0),
    },
    options: { limit: options.limit ?? null, top_k: options.topK },
    embedder: server.embedder,
    gb_settings: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('LOCI_GB_') && e[1] !== undefined)),
    store: { kind: location.store, key: location.key, reused: location.manifest?.gb !== undefined, stale: location.stale, ingestion: manifest.ingestion },
    machine: await describeMachine(location.databaseUrl),
    source: describeCheckout(options.repoRoot),
    rankers: [
      scoreReturned('gb-context', asked, (a) => a.context, gold, options.topK),
      scoreReturned('gb-evidence', asked, (a) => a.evidence, gold, options.topK),
      scoreProvenance(asked, gold, options.topK),
      ...baselines.map(([name, ranked]) => scoreBaseline(name, ranked, gold, options.topK)),
    ],
    latency_ms: { p50: Math.round(latency.p50), p95: Math.round(latency.p95) },
    retrieval_ms: { p50: Math.round(retrieval.p50), p95: Math.round(retrieval.p95) },
    answer_contains_gold: round3(mean(asked.map((a) => (containsAnswer(a.answer, a.question.answer) ? 1 : 0)))),
    unlocated: asked.reduce((n, a) => n + [...a.context, ...a.evidence].filter((p) => !p.chunk).length, 0),
    questions: asked.map((a) => ({
      id: a.question.id,
      answer: a.answer,
      contains_gold: containsAnswer(a.answer, a.question.answer),
      latency_ms: Math.round(a.latencyMs),
      retrieval_ms: Math.round(a.retrievalMs),
      context: a.context.map((p) => ({ text_name: p.textName, index: p.index, with_text: p.withText, titles: p.chunk?.titles ?? [] })),
      evidence: a.evidence.map((p) => ({ text_name: p.textName, index: p.index, titles: p.chunk?.titles ?? [] })),
      provenance_texts: a.provenance.map((t) => t.name),
    })),
    elapsed_s: Math.round((Date.now() - started) / 100) / 10,
  };
}

interface Placed {
  textName: string;
  index: number;
  /** The chunk in its text; null when it could not be placed (a text not remembered here, or a text that does not match). */
  chunk: HeldChunk | null;
}

interface Asked {
  question: Question;
  answer: string;
  latencyMs: number;
  retrievalMs: number;
  context: Array<Placed & { withText: boolean }>;
  evidence: Placed[];
  provenance: BundleDocument[];
}

/** A passage to the chunk it is: its text (parent_id) and index, checked against its text when it has one. */
function placePassage(p: Pick<GbPassageView, 'parent_id' | 'index' | 'text'>, byArtifact: Map<number, BundleDocument>, chunksOf: Map<string, HeldChunk[]>): Placed {
  const text = byArtifact.get(p.parent_id);
  const chunk = text ? chunksOf.get(text.name)?.[p.index] : undefined;
  const matches = chunk !== undefined && (p.text === undefined || p.text === chunk.text);
  return { textName: text?.name ?? `artifact ${p.parent_id}`, index: p.index, chunk: matches ? chunk : null };
}

/** Remembers every text for the eval's user, two at a time (remember ingests before it answers). */
async function rememberTexts(client: LociClient, texts: BundleDocument[], log: (line: string) => void) {
  const started = Date.now();
  const limit = pLimit(2);
  const artifacts: Record<string, number> = {};
  let done = 0;
  let reported = started;
  const failures: Array<{ name: string; error: string | null }> = [];
  await Promise.all(
    texts.map((t) =>
      limit(async () => {
        try {
          artifacts[t.name] = (await client.remember(GB_EVAL_USER, t.text)).artifact_id;
        } catch (error) {
          failures.push({ name: t.name, error: error instanceof Error ? error.message.slice(0, 300) : String(error) });
        }
        done++;
        if (Date.now() - reported > 30_000) {
          reported = Date.now();
          log(`remembering: ${done}/${texts.length} texts after ${((Date.now() - started) / 1000).toFixed(0)} s`);
        }
      }),
    ),
  );
  const elapsedS = Math.max(0.001, (Date.now() - started) / 1000);
  const passages = texts.reduce((n, t) => n + t.passages.length, 0);
  const ingestion: IngestionSummary = {
    documents: texts.length,
    processed: texts.length - failures.length,
    failed: failures.length,
    chunks: 0,
    elapsed_s: Math.round(elapsedS * 10) / 10,
    passages_per_s: Math.round((passages / elapsedS) * 100) / 100,
    failures: failures.slice(0, 20),
  };
  log(`remembered ${ingestion.processed} texts (${ingestion.failed} failed) in ${ingestion.elapsed_s} s`);
  return { artifacts, ingestion };
}

/**
 * The passages retrieval gives the answerer for a question, read in process: the route's own
 * service (`retrieve`, the contract's steps 1–2), on the eval user's dataset. The response only
 * carries what the answerer cited; this is what it was given.
 */
async function contextReader(app: INestApplication, tenantId: string, userId: string): Promise<(question: string) => Promise<GbPassage[]>> {
  const service = app.get(GbQueryService);
  const graph = await app.get(GraphsRepository).findGbGraph(tenantId, userId, 'main');
  if (!graph) throw new Error(`no gb dataset for ${userId}`);
  const ownKeys = app.get(OwnKeysService);
  let n = 0;
  return async (question) => {
    const ctx = await ownKeys.callContext(tenantId, `eval-gb-${++n}`, 'query');
    const context = await service.retrieve(ctx, { tenantId, graphId: graph.id }, question, (_name, work) => work());
    return context.passages;
  };
}

function scoreReturned(name: string, asked: Asked[], pick: (a: Asked) => Array<Placed & { withText?: boolean }>, gold: Map<string, string[]>, topK: number[]): GbRankerResult {
  const chunks = (a: Asked) => pick(a).flatMap((p) => (p.chunk ? [p.chunk] : []));
  return {
    ranker: name,
    recall: Object.fromEntries(topK.map((k) => [String(k), round3(mean(asked.map((a) => recallAt(titlesWithinChunks(chunks(a), k), gold.get(a.question.id)!, Infinity))))])),
    recall_all: round3(mean(asked.map((a) => recallAt(contextTitles(chunks(a)), gold.get(a.question.id)!, Infinity)))),
    passages_mean: round2(mean(asked.map((a) => pick(a).length))),
    with_text_mean: round2(mean(asked.map((a) => pick(a).filter((p) => p.withText ?? true).length))),
    no_passages: asked.filter((a) => pick(a).length === 0).length,
  };
}

/** Every passage of the texts the cited edges came from (a text holds docs_of passages). */
function scoreProvenance(asked: Asked[], gold: Map<string, string[]>, topK: number[]): GbRankerResult {
  const titles = (a: Asked) => a.provenance.flatMap((t) => t.passages.map((p) => p.title));
  const recall = round3(mean(asked.map((a) => recallAt(titles(a), gold.get(a.question.id)!, Infinity))));
  return {
    ranker: 'gb-provenance',
    recall: Object.fromEntries(topK.map((k) => [String(k), Number.NaN])),
    recall_all: recall,
    passages_mean: round2(mean(asked.map((a) => a.provenance.length))),
    with_text_mean: Number.NaN,
    no_passages: asked.filter((a) => a.provenance.length === 0).length,
  };
}

function scoreBaseline(name: string, ranked: Ranked[], gold: Map<string, string[]>, topK: number[]): GbRankerResult {
  return {
    ranker: name,
    recall: Object.fromEntries(topK.map((k) => [String(k), round3(mean(ranked.map((r) => recallAt(titlesWithinChunks(r.chunks, k), gold.get(r.id)!, Infinity))))])),
    recall_all: Number.NaN,
    passages_mean: Number.NaN,
    with_text_mean: Number.NaN,
    no_passages: ranked.filter((r) => r.chunks.length === 0).length,
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const fixed = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** The results as a Markdown table, each recall@k beside bm25-chunks' of the same run. */
export function gbTable(report: GbReport): string[] {
  const ks = report.options.top_k.map(String);
  const reference = report.rankers.find((r) => r.ranker === 'bm25-chunks')!;
  const header = ['ranker', ...ks.map((k) => `R@${k}`), ...ks.map((k) => `×BM25@${k}`), 'R@all', 'passages', 'with text', 'none'];
  const rows = report.rankers.map((r) => [
    r.ranker,
    ...ks.map((k) => fixed(r.recall[k])),
    ...ks.map((k) => fixed(r.recall[k] / reference.recall[k], 2)),
    fixed(r.recall_all),
    fixed(r.passages_mean, 2),
    fixed(r.with_text_mean, 2),
    String(r.no_passages),
  ]);
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

export function gbSummary(report: GbReport): string {
  const i = report.store.ingestion;
  return (
    `${report.corpus.questions} questions, ${report.corpus.passages} passages remembered in ${report.corpus.texts} texts of ${report.corpus.docs_of}; ` +
    `${report.chunking.chunked_texts} texts chunked into ${report.chunking.chunks} chunks of ${report.chunking.chunk_tokens} tokens; ${i.failed} failed, on ${report.store.kind}` +
    `${report.store.reused ? ' (reused store)' : ''}; remember ${i.elapsed_s} s; gb query p50 ${report.latency_ms.p50} ms, p95 ${report.latency_ms.p95} ms ` +
    `(retrieval alone p50 ${report.retrieval_ms.p50} ms, p95 ${report.retrieval_ms.p95} ms); ` +
    `answer ⊇ gold ${fixed(report.answer_contains_gold)}; unlocated ${report.unlocated}; run ${report.elapsed_s} s.`
  );
}
