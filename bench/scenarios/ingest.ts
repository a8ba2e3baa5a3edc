import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { loadSettings, Settings } from '@loci/config';
import { TenantsRepository } from '@loci/db';
import { BulkLoadService, chunkText, DocumentsService, IngestWorker } from '@loci/ingest';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { countTokens } from '../../libs/llm/src/metering/token-counter';
import { summarizeLocally } from '../../libs/llm/src/local/summarizer';
import { GenDocument, GenFact, generateDocuments } from '../generator';
import { LatencySummary, summarize } from '../stats';
import { DOUBLE_MODEL, ModelDouble, startModelDouble } from './model-double';

/**
 * `ingest`: chunks per second through the whole pipeline: DocumentsService.submit (document
 * and job in one transaction) and the IngestWorker consuming the durable queue (chunking,
 * summarize + extract, embeddings, entity resolution, supersession, provenance, one
 * transaction per chunk), in this process, on the real store. Documents are generated texts
 * (bench/generator.ts) joined to about `documentChunks` chunks each, submitted in a burst.
 *
 * - provider `local`: the offline NLP extractor and extractive summarizer (the embedded default).
 * - provider `double`: summarize and extract go to the LLM double (Anthropic wire format, real
 *   SDK) answering after `modelDelayMs`; it answers with the facts the generator wrote into
 *   each chunk (a perfect extractor), so the graph written is realistic. Embeddings stay local.
 */

export type IngestProvider = 'local' | 'double';
export const INGEST_PROVIDERS: readonly IngestProvider[] = ['local', 'double'];

export interface IngestCell {
  scenario: 'ingest';
  provider: IngestProvider;
  /** The double's latency per model call (null: local). */
  model_delay_ms: number | null;
  /** LOCI_WORKER_CONCURRENCY: documents ingested at once. */
  worker_concurrency: number;
  /** LOCI_MODEL_CONCURRENCY: model calls in flight at once (local calls excluded). */
  model_concurrency: number;
  documents: number;
  failed_documents: number;
  chunks: number;
  /** From the first submit to the last document processed. */
  elapsed_s: number;
  chunks_per_s: number;
  documents_per_s: number;
  /** Per document, from submit (created_at) to processed_at. */
  document_latency_ms: LatencySummary;
  /** Job attempts beyond the first (a chunk that failed, e.g. on a deadlock, is retried by the queue). */
  job_retries: number;
  /**
   * SQL statements the pipeline sent per chunk (BEGIN/COMMIT included), counted by wrapping
   * pg's Client.prototype.query for the cell (the bench's own polling client excluded).
   */
  sql_statements_per_chunk: number;
  /**
   * CPU time of this process (every thread: the event loop and the CPU pool's workers) from the
   * first submit to the last document processed, per chunk: process.cpuUsage().
   */
  node_cpu_ms_per_chunk: number;
  /** Model requests the double answered (null: local). */
  model_calls: number | null;
  /** What the pipeline wrote for the run's tenant. */
  graph: { entities: number; edges: number };
  /**
   * Bulk mode (`--bulk`): the tenant's bulk load began before the first submit and finished
   * after the last document; `index_build_s` is from the finish until the graph's own indexes
   * were built, and `chunks_per_s_with_build` counts that time too. Null: loaded as usual.
   */
  bulk: { index_build_s: number; chunks_per_s_with_build: number } | null;
}

export interface IngestBenchOptions {
  databaseUrl: string;
  redisUrl?: string;
  providers: IngestProvider[];
  workerConcurrencies: number[];
  /** Default: the setting (LOCI_MODEL_CONCURRENCY, 8). */
  modelConcurrency?: number;
  modelDelayMs: number;
  documents: number;
  documentChunks: number;
  seed: number;
  logLevel?: string;
  /** Keep the run's tenants (default: deleted with everything they hold). */
  keepTenants?: boolean;
  /** Run each cell twice, as usual and then in bulk mode (issue 16.3), side by side. */
  bulk?: boolean;
  log?: (line: string) => void;
}

export interface BenchDocument {
  name: string;
  text: string;
  documentDate: Date;
  facts: GenFact[];
}

export async function runIngestBench(options: IngestBenchOptions): Promise<{ cells: IngestCell[] }> {
  const log = options.log ?? (() => undefined);
  const cells: IngestCell[] = [];
  for (const provider of options.providers) {
    for (const workerConcurrency of options.workerConcurrencies) {
      for (const bulk of options.bulk ? [false, true] : [false]) {
        const cell = await runIngestCell(options, provider, workerConcurrency, bulk);
        cells.push(cell);
        log(ingestLine(cell));
      }
    }
  }
  return { cells };
}

async function runIngestCell(options: IngestBenchOptions, provider: IngestProvider, workerConcurrency: number, bulk: boolean): Promise<IngestCell> {
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-bench-ingest-'));
  let double: ModelDouble | undefined;
  try {
    // The settings first (chunk size), then the documents and what the double answers for them.
    const env = ingestEnv(options, workerConcurrency, dataDir);
    const chunkSettings = loadSettings(env).ingest;
    const documents = benchDocuments(options, chunkSettings.chunkTokens - chunkSettings.chunkOverlapTokens);
    if (provider === 'double') {
      const replies = doubleReplies(documents, chunkSettings);
      double = await startModelDouble(dataDir, (userText) => replies(userText), options.modelDelayMs);
      Object.assign(env, double.env, { LOCI_EXTRACT_MODEL: DOUBLE_MODEL, LOCI_SUMMARIZE_MODEL: DOUBLE_MODEL });
    }
    const settings = loadSettings(env);
    return await ingestWith(settings, options, documents, provider, double, bulk);
  } finally {
    await double?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The worker's settings: the bench's store, LOCI_* from the environment, local embeddings, no provider keys. */
function ingestEnv(options: IngestBenchOptions, workerConcurrency: number, dataDir: string): Record<string, string | undefined> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LOCI_')));
  return {
    ...inherited,
    NODE_ENV: 'production',
    // Production requires both secrets; the bench ingests for platform-billed tenants only, so one-off values do.
    JWT_SECRET: process.env.JWT_SECRET || randomBytes(48).toString('base64url'),
    LOCI_ENCRYPTION_KEY: process.env.LOCI_ENCRYPTION_KEY || randomBytes(32).toString('base64'),
    LOG_LEVEL: options.logLevel ?? 'warn',
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    LOCI_DATA_DIR: dataDir,
    LOCI_RUN_WORKER: 'false',
    // The bench measures ingestion: a seeded store at another offline width is not to be moved meanwhile.
    LOCI_MOVE_LOCAL_VECTORS: 'false',
    LOCI_WORKER_CONCURRENCY: String(workerConcurrency),
    ...(options.modelConcurrency ? { LOCI_MODEL_CONCURRENCY: String(options.modelConcurrency) } : {}),
    LOCI_EMBED_MODEL: 'local:local-hash-v1',
  };
}

async function ingestWith(
  settings: Settings,
  options: IngestBenchOptions,
  documents: BenchDocument[],
  provider: IngestProvider,
  double: ModelDouble | undefined,
  bulk: boolean,
): Promise<IngestCell> {
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), { logger: ['error'], abortOnError: false });
  const db = new Client({ connectionString: options.databaseUrl });
  await db.connect();
  const statements = countStatements(db);
  let tenantId: string | undefined;
  try {
    const tenant = await app.get(TenantsRepository).create({ name: `bench-ingest-${provider}-${Date.now()}`, tier: 'enterprise', billing: 'platform' });
    tenantId = tenant.id;
    const submitter = app.get(DocumentsService);
    app.get(IngestWorker).start();
    const started = Date.now();
    const cpuAtStart = process.cpuUsage();
    statements.reset();
    if (bulk) await app.get(BulkLoadService).begin(tenant.id);
    for (const document of documents) {
      await submitter.submit(tenant.id, { name: document.name, text: document.text, mimeType: 'text/plain', documentDate: document.documentDate });
    }
    await waitUntilIngested(db, tenant.id, documents.length);
    const cpu = process.cpuUsage(cpuAtStart);
    const sent = statements.count;
    const rows = (
      await db.query<{ status: string; chunks_done: number; created_at: Date; processed_at: Date | null }>(
        'SELECT status, chunks_done, created_at, processed_at FROM documents WHERE tenant_id = $1',
        [tenant.id],
      )
    ).rows;
    const processed = rows.filter((r) => r.status === 'processed' && r.processed_at);
    const finished = Math.max(...processed.map((r) => r.processed_at!.getTime()), started);
    const elapsedS = Math.max(0.001, (finished - started) / 1000);
    const chunks = rows.reduce((n, r) => n + Number(r.chunks_done), 0);
    let bulkResult: IngestCell['bulk'] = null;
    if (bulk) {
      const finishing = Date.now();
      await app.get(BulkLoadService).finish(tenant.id);
      await waitUntilIndexed(app.get(BulkLoadService), tenant.id);
      const built = Date.now();
      bulkResult = { index_build_s: round((built - finishing) / 1000), chunks_per_s_with_build: round(chunks / Math.max(0.001, (built - started) / 1000)) };
    }
    const count = async (table: string) => Number((await db.query(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1`, [tenant.id])).rows[0].n);
    return {
      scenario: 'ingest',
      provider,
      model_delay_ms: provider === 'double' ? options.modelDelayMs : null,
      worker_concurrency: settings.ingest.workerConcurrency,
      model_concurrency: settings.llm.concurrency,
      documents: rows.length,
      failed_documents: rows.filter((r) => r.status === 'failed').length,
      chunks,
      elapsed_s: round(elapsedS),
      chunks_per_s: round(chunks / elapsedS),
      documents_per_s: round(processed.length / elapsedS),
      document_latency_ms: summarize(processed.map((r) => r.processed_at!.getTime() - r.created_at.getTime())),
      sql_statements_per_chunk: Math.round((sent / Math.max(1, chunks)) * 10) / 10,
      node_cpu_ms_per_chunk: Math.round((cpu.user + cpu.system) / 1000 / Math.max(1, chunks)),
      job_retries: Number((await db.query(`SELECT coalesce(sum(attempts - 1), 0) AS n FROM jobs WHERE tenant_id = $1`, [tenant.id])).rows[0].n),
      model_calls: double ? double.answered() : null,
      graph: { entities: await count('entities'), edges: await count('edges') },
      bulk: bulkResult,
    };
  } finally {
    statements.restore();
    await app.close();
    // BENCH_KEEP_TENANTS=1 keeps them from the command line too (to compare what two builds wrote).
    const keep = options.keepTenants ?? process.env.BENCH_KEEP_TENANTS === '1';
    if (tenantId && keep) options.log?.(`kept tenant ${tenantId}`);
    if (tenantId && !keep) await db.query('DELETE FROM tenants WHERE id = $1', [tenantId]);
    await db.end();
  }
}

/** Counts Client.prototype.query calls of every client but `own` until restored. */
function countStatements(own: Client) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and applied with the client as `this`
  const original = Client.prototype.query;
  const counter = {
    count: 0,
    reset: () => void (counter.count = 0),
    restore: () => void (Client.prototype.query = original),
  };
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    if (this !== own) counter.count++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return counter;
}

/** Polls until the tenant graph's own indexes are built (the worker in this process builds them). */
async function waitUntilIndexed(bulkLoads: BulkLoadService, tenantId: string, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { state } = await bulkLoads.status(tenantId);
    if (state === 'indexed') return;
    if (Date.now() > deadline) throw new Error(`ingest: the bulk load is still ${state} after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls until every document of the tenant is processed or failed (another worker may share the queue). */
async function waitUntilIngested(db: Client, tenantId: string, expected: number, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM documents WHERE tenant_id = $1 AND status IN ('processed', 'failed')`, [tenantId]);
    if (Number(rows[0].n) >= expected) return;
    if (Date.now() > deadline) throw new Error(`ingest: ${rows[0].n} of ${expected} documents done after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Generated documents joined until each is about `documentChunks` chunks of `tokensPerChunk` long. */
export function benchDocuments(options: { documents: number; documentChunks: number; seed: number }, tokensPerChunk: number): BenchDocument[] {
  const target = Math.max(1, options.documentChunks) * tokensPerChunk * 0.95;
  const source = generateDocuments({ index: 0, large: true, edges: options.documents * options.documentChunks * 80 + 1000, stream: 'ingest' }, options.seed, new Date());
  const out: BenchDocument[] = [];
  let parts: GenDocument[] = [];
  let tokens = 0;
  for (const part of source) {
    parts.push(part);
    tokens += countTokens(part.text);
    if (tokens < target) continue;
    out.push({
      name: parts[0].name,
      text: parts.map((p) => p.text).join('\n\n'),
      documentDate: parts[0].documentDate,
      facts: parts.flatMap((p) => p.chunks.flatMap((c) => c.facts)),
    });
    parts = [];
    tokens = 0;
    if (out.length === options.documents) break;
  }
  return out;
}

/** The double stops a reply at the request's max_tokens (about 4 characters a token): extract asks 4096, summarize 400. */
const EXTRACTION_MAX_CHARS = 12_000;
const SUMMARY_MAX_CHARS = 1_200;

/**
 * The double's replies, worked out before the clock starts: for each chunk the pipeline will
 * cut (same chunker, same settings), the facts it states as an extraction, as many as fit in
 * the extract stage's output cap (the generator's text states a fact in every sentence, denser
 * than prose, so a full chunk's facts would not), and the local extractive summary as the
 * summary. Unknown text (should not happen) gets an empty extraction.
 */
function doubleReplies(documents: BenchDocument[], chunking: { chunkTokens: number; chunkOverlapTokens: number }): (userText: string) => string {
  const extractions = new Map<string, string>();
  const summaries = new Map<string, string>();
  for (const document of documents) {
    for (const chunk of chunkText(document.text, { maxTokens: chunking.chunkTokens, overlapTokens: chunking.chunkOverlapTokens })) {
      const entities = new Map<string, { name: string; type: string; description: string }>();
      const relations: unknown[] = [];
      let reply = JSON.stringify({ entities: [], relations: [] });
      for (const f of document.facts.filter((fact) => chunk.text.includes(fact.description))) {
        for (const e of [f.source, f.target]) if (!entities.has(e.name)) entities.set(e.name, { name: e.name, type: e.type, description: e.description });
        relations.push({
          source: f.source.name,
          target: f.target.name,
          relation: f.template.relation,
          description: f.description,
          keywords: [...f.template.keywords],
          valid_at: f.validAt.toISOString(),
          invalid_at: f.invalidAt?.toISOString() ?? null,
        });
        const next = JSON.stringify({ entities: [...entities.values()], relations });
        if (next.length > EXTRACTION_MAX_CHARS) break;
        reply = next;
      }
      extractions.set(chunk.text, reply);
      summaries.set(chunk.text, JSON.stringify({ summary: (summarizeLocally(chunk.text) || chunk.text).slice(0, SUMMARY_MAX_CHARS) }));
    }
  }
  const empty = JSON.stringify({ entities: [], relations: [] });
  return (userText: string) => {
    // extractUser wraps the chunk in <text>…</text> (after an optional date line); summarize sends it bare.
    const wrapped = /<text>\n([\s\S]*)\n<\/text>$/.exec(userText);
    if (wrapped) return extractions.get(wrapped[1]) ?? empty;
    return summaries.get(userText) ?? JSON.stringify({ summary: userText.slice(0, 200) });
  };
}

export function ingestLine(cell: IngestCell): string {
  const l = cell.document_latency_ms;
  return (
    `ingest ${cell.provider.padEnd(6)}${cell.model_delay_ms !== null ? ` +${cell.model_delay_ms} ms` : ''} workers=${cell.worker_concurrency} models=${cell.model_concurrency}${cell.bulk ? ' BULK' : ''}: ` +
    `${cell.chunks_per_s} chunks/s, ${cell.documents_per_s} documents/s (${cell.chunks} chunks, ${cell.documents} documents, ${cell.failed_documents} failed, ${cell.elapsed_s} s); ` +
    `document p50 ${l.p50} p99 ${l.p99} ms; ${cell.sql_statements_per_chunk} SQL/chunk; ${cell.node_cpu_ms_per_chunk} ms Node CPU/chunk; ${cell.job_retries} job retries; wrote ${cell.graph.entities} entities, ${cell.graph.edges} edges` +
    (cell.model_calls !== null ? `; ${cell.model_calls} model calls` : '') +
    (cell.bulk ? `; own indexes built in ${cell.bulk.index_build_s} s, ${cell.bulk.chunks_per_s_with_build} chunks/s with the build` : '')
  );
}

const round = (x: number) => Math.round(x * 100) / 100;
