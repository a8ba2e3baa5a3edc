import MiniSearch from 'minisearch';
import { describeMachine } from '../../bench/report';
import { summarize } from '../../bench/stats';
import { loadSettings } from '../../libs/config/src/settings';
import { chunkText } from '../../libs/ingest/src/chunking/chunker';
import { countTokens } from '../../libs/llm/src/metering/token-counter';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { BM25_PARAMS, Bm25Ranker, ENGLISH_ANALYZER } from './bm25';
import { BundleDocument, bundlePassages, bundlesHash, contextTitles, heldChunk, HeldChunk, locateChunk, titlesWithinChunks, titlesWithinTokens } from './bundles';
import { loadEvalSet, passageText, Question, sampleEvalSet } from './corpus';
import { apiKeyFor, ingestDocuments, provisionTenant } from './ingestion';
import { LociClient } from './loci-client';
import { ingestionTuning, startLociServer } from './loci-server';
import { mean, recallAt, round3 } from './metrics';
import { CORPUS_LICENSE } from './report';
import { finishedManifest, ingestionFingerprint, IngestionSummary, locateStoreFor, StoreKind } from './store-cache';
import { describeCheckout, HotpotqaOptions } from './hotpotqa';

export interface BundleOptions extends Omit<HotpotqaOptions, 'answers'> {
  /** Passages per document. */
  docsOf: number;
  /** Context budgets, in tokens, recall is measured at. */
  budgets: number[];
}

/** One ranker's recall in the multi-passage eval. */
export interface BundleRankerResult {
  ranker: string;
  /** Per question, the fraction of gold passages of which the first k chunks hold at least half the text; averaged. */
  recall_at_chunks: Record<string, number>;
  /** Per question, the fraction of gold passages held by a context of at most T tokens, filled as Loci fills one; averaged. */
  recall_at_tokens: Record<string, number>;
  /** The same over everything returned (the server's own context budget). */
  recall_all: number;
  chunks_mean: number;
  tokens_mean: number;
  /** Passages a returned chunk holds at least half of, on average. */
  passages_per_chunk: number;
  latency_ms: { p50: number; p95: number } | null;
  /** Returned chunks whose text was not found in their document (should be 0). */
  unlocated: number;
}

export interface BundleReport {
  eval: 'hotpotqa-docs-of';
  created_at: string;
  corpus: { folder: string; passages: number; questions: number; documents: number; docs_of: number; sha256: string; license: string };
  chunking: { chunk_tokens: number; overlap_tokens: number };
  options: { limit: number | null; modes: string[]; top_k: number[]; budgets: number[] };
  store: { kind: StoreKind; key: string; reused: boolean; stale: boolean; ingestion: IngestionSummary; chunks_per_document: number };
  machine: Awaited<ReturnType<typeof describeMachine>>;
  source: ReturnType<typeof describeCheckout>;
  rankers: BundleRankerResult[];
  /**
   * Per question and ranker: each returned chunk, best first: where it lies (so the run can be
   * scored again), its tokens and the passages it alone holds. A baseline ranks every chunk that
   * shares a word with the question; only the chunks its scores read are kept (scoredPrefix).
   */
  questions: Array<{ id: string; ranker: string; chunks: Array<{ document: string; start: number; end: number; tokens: number; titles: string[] }> }>;
  elapsed_s: number;
}

export interface Ranked {
  id: string;
  chunks: HeldChunk[];
  latencyMs?: number;
  unlocated?: number;
}

/**
 * The HotpotQA-100 eval with N passages to a document (`--docs-of N`): the chunker decides what a
 * retrieved unit is, so chunk sizes can be compared. Each mode's chunks are mapped to the passages
 * they hold; recall is read at k chunks and at a fixed context budget in tokens, beside BM25 over
 * the same chunks (cut by the same chunker with the same settings) and BM25 over the passages.
 */
export async function runHotpotqaBundles(options: BundleOptions): Promise<BundleReport> {
  const started = Date.now();
  const log = options.log;
  const set = sampleEvalSet(loadEvalSet(options.corpusFolder), options.limit, options.distractors);
  const documents = bundlePassages(set.passages, options.docsOf);
  const byName = new Map(documents.map((d) => [d.name, d]));
  const corpusSha = bundlesHash(documents);
  const tuning = ingestionTuning();
  const fingerprint = ingestionFingerprint(options.repoRoot, tuning);
  const { chunkTokens, chunkOverlapTokens } = loadSettings(tuning).ingest;
  const location = await locateStoreFor(options, corpusSha, fingerprint);
  log(
    `${documents.length} documents of ${options.docsOf} passages, chunks of ${chunkTokens} tokens (overlap ${chunkOverlapTokens}): ` +
      (location.manifest ? `reusing the ${location.store} store ${location.key}` : `ingesting into a new ${location.store} store ${location.key}`),
  );

  const baselines: Array<[string, Ranked[]]> = [
    ['bm25-chunks', rankChunksByBm25(documents, set.questions, chunkTokens, chunkOverlapTokens)],
    ['bm25-passages', rankPassagesByBm25(set, set.questions)],
  ];
  const server = await startLociServer({ dataDir: location.dataDir, databaseUrl: location.databaseUrl });
  const modes: Array<[string, Ranked[]]> = [];
  let manifest = location.manifest;
  try {
    const root = new LociClient(server.url);
    if (!manifest) {
      const tenant = await provisionTenant(root);
      const ingestion = await ingestDocuments(root.as({ apiKey: await apiKeyFor(root, tenant.tenantId) }), documents, { log });
      manifest = finishedManifest(location, { corpusSha, fingerprint, tenant, ingestion });
    }
    const ingestion = manifest.ingestion;
    log(`store: ${ingestion.processed} documents processed, ${ingestion.failed} failed, ${ingestion.chunks} chunks; ingestion took ${ingestion.elapsed_s} s`);
    for (const mode of options.modes) {
      const user = root.as({ token: await root.login(manifest.user.email, manifest.user.password) });
      modes.push([mode, await askForChunks(user, set.questions, mode, byName)]);
      log(`${mode}: asked`);
    }
  } finally {
    await server.close();
  }

  const gold = new Map(set.questions.map((q) => [q.id, q.supporting_titles]));
  const rankers = [...modes, ...baselines];
  const ingestion = manifest.ingestion;
  return {
    eval: 'hotpotqa-docs-of',
    created_at: new Date(started).toISOString(),
    corpus: {
      folder: set.folder,
      passages: set.passages.length,
      questions: set.questions.length,
      documents: documents.length,
      docs_of: options.docsOf,
      sha256: corpusSha,
      license: CORPUS_LICENSE,
    },
    chunking: { chunk_tokens: chunkTokens, overlap_tokens: chunkOverlapTokens },
    options: { limit: options.limit ?? null, modes: options.modes, top_k: options.topK, budgets: options.budgets },
    store: {
      kind: location.store,
      key: location.key,
      reused: location.manifest !== undefined,
      stale: location.stale,
      ingestion,
      chunks_per_document: Math.round((ingestion.chunks / Math.max(1, ingestion.documents)) * 100) / 100,
    },
    machine: await describeMachine(location.databaseUrl),
    source: describeCheckout(options.repoRoot),
    rankers: rankers.map(([name, ranked]) => scoreRanker(name, ranked, gold, options)),
    questions: rankers.flatMap(([name, ranked]) =>
      ranked.map((r) => ({
        id: r.id,
        ranker: name,
        chunks: (r.latencyMs === undefined ? scoredPrefix(r.chunks, options) : r.chunks).map((c) => ({
          document: c.document.name,
          start: c.start,
          end: c.end,
          tokens: countTokens(c.text),
          titles: c.titles,
        })),
      })),
    ),
    elapsed_s: Math.round((Date.now() - started) / 100) / 10,
  };
}

/**
 * The first chunks of a baseline's ranking that its scores read: the largest k of recall@k, or
 * as many as fill the largest budget (the one cut to fit included), whichever is more. The rest
 * (often thousands of chunks a question) made a results file ten times larger and is never read.
 */
export function scoredPrefix<T extends { text: string }>(chunks: T[], options: { topK: number[]; budgets: number[] }): T[] {
  const maxBudget = Math.max(0, ...options.budgets);
  let count = 0;
  for (let used = 0; count < chunks.length && used < maxBudget; count++) used += countTokens(chunks[count].text);
  return chunks.slice(0, Math.max(count, ...options.topK));
}

/** Every question in context mode as the dashboard user (so each mode is searched as asked; see ask-questions.ts). */
async function askForChunks(user: LociClient, questions: Question[], mode: RetrievalMode, byName: Map<string, BundleDocument>): Promise<Ranked[]> {
  const out: Ranked[] = [];
  for (const q of questions) {
    const t0 = performance.now();
    const reply = await user.query(q.question, mode, true);
    const latencyMs = performance.now() - t0;
    const located = (reply.context?.chunks ?? []).map((c) => locateChunk(byName.get(c.document_name ?? ''), c.text));
    out.push({ id: q.id, chunks: located.filter((c): c is HeldChunk => c !== null), latencyMs, unlocated: located.filter((c) => c === null).length });
  }
  return out;
}

/** BM25 over the chunks Loci's chunker cuts from the same documents with the same settings. */
export function rankChunksByBm25(documents: BundleDocument[], questions: Question[], maxTokens: number, overlapTokens: number): Ranked[] {
  const chunks = documents.flatMap((d) => chunkText(d.text, { maxTokens, overlapTokens }).map((c) => heldChunk(d, c.startOffset, c.text)));
  const index = new MiniSearch<{ id: number; text: string }>({
    fields: ['text'],
    processTerm: (term) => ENGLISH_ANALYZER.term(term.toLowerCase()) ?? false,
    searchOptions: { bm25: { k: BM25_PARAMS.k1, b: BM25_PARAMS.b, d: 0 } },
  });
  index.addAll(chunks.map((c, id) => ({ id, text: c.text })));
  return questions.map((q) => ({ id: q.id, chunks: index.search(q.question).map((hit) => chunks[hit.id as number]) }));
}

/** BM25 over whole passages, each its own unit (the one-passage-per-document eval's baseline): the reference of ideal boundaries. */
export function rankPassagesByBm25(set: { passages: Array<{ title: string; text: string }> }, questions: Question[]): Ranked[] {
  const ranker = new Bm25Ranker(set.passages, ENGLISH_ANALYZER);
  const units = new Map(
    set.passages.map((p) => {
      const text = passageText(p);
      return [p.title, heldChunk({ name: p.title, text, passages: [{ title: p.title, start: 0, end: text.length }] }, 0, text)];
    }),
  );
  return questions.map((q) => ({ id: q.id, chunks: ranker.rank(q.question).map((title) => units.get(title)!) }));
}

function scoreRanker(name: string, ranked: Ranked[], gold: Map<string, string[]>, options: BundleOptions): BundleRankerResult {
  const avg = (titles: (r: Ranked) => string[]) => round3(mean(ranked.map((r) => recallAt(titles(r), gold.get(r.id)!, Infinity))));
  const returned = ranked.map((r) => r.chunks);
  const latencies = ranked.flatMap((r) => (r.latencyMs === undefined ? [] : [r.latencyMs]));
  const latency = latencies.length > 0 ? summarize(latencies) : null;
  const allChunks = returned.flat();
  const isMode = latency !== null;
  return {
    ranker: name,
    recall_at_chunks: Object.fromEntries(options.topK.map((k) => [String(k), avg((r) => titlesWithinChunks(r.chunks, k))])),
    recall_at_tokens: Object.fromEntries(options.budgets.map((t) => [String(t), avg((r) => titlesWithinTokens(r.chunks, t))])),
    // A baseline ranks every chunk sharing a word with the question: "all" means nothing there.
    recall_all: isMode ? avg((r) => contextTitles(r.chunks)) : Number.NaN,
    chunks_mean: isMode ? round1(mean(returned.map((c) => c.length))) : Number.NaN,
    tokens_mean: isMode ? Math.round(mean(returned.map((c) => c.reduce((n, x) => n + countTokens(x.text), 0)))) : Number.NaN,
    passages_per_chunk: round3(mean(allChunks.map((c) => c.titles.length))),
    latency_ms: latency ? { p50: Math.round(latency.p50), p95: Math.round(latency.p95) } : null,
    unlocated: ranked.reduce((n, r) => n + (r.unlocated ?? 0), 0),
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const fixed = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** The results as a Markdown table: recall at k chunks and at a budget of tokens, each beside bm25-chunks of the same run. */
export function bundleTable(report: BundleReport): string[] {
  const ks = report.options.top_k.map(String);
  const budgets = report.options.budgets.map(String);
  const reference = report.rankers.find((r) => r.ranker === 'bm25-chunks')!;
  const header = ['ranker', ...ks.map((k) => `R@${k}`), ...budgets.map((t) => `R@≤${t}t`), ...budgets.map((t) => `×BM25@≤${t}t`), 'R@all', 'chunks', 'tokens', 'passages/chunk', 'p50 ms'];
  const rows = report.rankers.map((r) => [
    r.ranker,
    ...ks.map((k) => fixed(r.recall_at_chunks[k])),
    ...budgets.map((t) => fixed(r.recall_at_tokens[t])),
    ...budgets.map((t) => fixed(r.recall_at_tokens[t] / reference.recall_at_tokens[t], 2)),
    fixed(r.recall_all),
    fixed(r.chunks_mean, 1),
    fixed(r.tokens_mean, 0),
    fixed(r.passages_per_chunk, 2),
    r.latency_ms ? String(r.latency_ms.p50) : '–',
  ]);
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}

export function bundleSummary(report: BundleReport): string {
  const i = report.store.ingestion;
  return (
    `${report.corpus.questions} questions, ${report.corpus.passages} passages in ${report.corpus.documents} documents of ${report.corpus.docs_of}; ` +
    `chunks of ${report.chunking.chunk_tokens} tokens, overlap ${report.chunking.overlap_tokens}: ${i.chunks} chunks (${report.store.chunks_per_document} a document), ` +
    `${i.failed} failed, on ${report.store.kind}${report.store.reused ? ' (reused store)' : ''}; ingestion ${i.elapsed_s} s; run ${report.elapsed_s} s.`
  );
}
