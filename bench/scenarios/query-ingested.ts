import { Client } from 'pg';
import { ApiKeysService } from '../../libs/auth/src/api-keys.service';
import { ApiKeysRepository, findMigrationsFolder, GraphsRepository, PostgresDatabase, TenantsRepository } from '@loci/db';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { createRng } from '../prng';
import { BenchQuestion, describeDatabase, QuestionsFile, Reservoir } from '../questions';
import { LatencySummary, summarize } from '../stats';
import { ExplainOutcome, runExplainBench } from './explain';
import { GRAPH_SCAN_TABLES, GraphStatisticsSnapshot, graphStatistics } from './graph-statistics';
import { rssBytes } from './api-process';
import { jsonHeaders } from './http-load';
import { BenchDocument } from './ingest';
import { QueryBenchOutcome, runQueryBench } from './query';

/**
 * `query-ingested`: the query scenario on a graph built the way tenants build theirs, by
 * uploading documents to the running API (POST /v1/documents with an API key, ingested by the
 * API's in-process worker with whatever providers it is configured with: the local ones in
 * the bench) instead of a seed that ends with VACUUM ANALYZE. Nobody analyzes for it: with
 * autovacuum off (or behind), the planner's statistics of the new graph are whatever Loci's
 * own statistics keeper left. So once the last document is processed it records, for the
 * tenant's graph, the planner's row estimates against the counted rows and each table's
 * analyze history (graph-statistics.ts); then the same plans under EXPLAIN as `explain` (HNSW
 * or not), and the same query cells as `query`, beside the same floor (against a fresh API
 * when `queryTarget` gives one); and the statistics once more after the load. The corpus is the ingest scenario's (bench/generator.ts texts,
 * deterministic for a seed); questions are written from the facts those texts state.
 */

export interface IngestedBenchOptions {
  databaseUrl: string;
  /** The API that ingests: its in-process worker must be on (LOCI_RUN_WORKER). pid null: no RSS. */
  target: ApiTarget;
  /**
   * The API that answers the query cells, asked for once ingestion is done (default: `target`).
   * The command starts a fresh one, as `query` does, so the cells compare graphs, not the heap
   * an ingesting process leaves behind.
   */
  queryTarget?: () => Promise<ApiTarget>;
  documents: BenchDocument[];
  seed: number;
  modes: RetrievalMode[];
  concurrencies: number[];
  durationS: number;
  checkCount: number;
  poolMax: number;
  /** Questions kept from the corpus's live facts (default 200). */
  questions?: number;
  /** Give up waiting for ingestion after this long (default 60 min). */
  ingestTimeoutMs?: number;
  /** After the cells, ANALYZE the graph tables by hand and run the plans and the cells again. */
  thenAnalyze?: boolean;
  /** Keep the run's tenant and its graph (default: deleted afterwards). */
  keepTenant?: boolean;
  log?: (line: string) => void;
}

export interface ApiTarget {
  url: string;
  /** For RSS and CPU samples; null: not sampled. */
  pid: number | null;
}

export interface IngestionSummary {
  documents: number;
  failed_documents: number;
  chunks: number;
  /** From the first upload to the last processed_at. */
  elapsed_s: number;
  chunks_per_s: number;
  /** Per upload: POST /v1/documents answered (202). */
  upload_latency_ms: LatencySummary;
  /** RSS of the ingesting API once the last document was processed (null: not sampled). */
  api_rss_mb: number | null;
  graph: { tenant_id: string; graph_id: number; documents: number; chunks: number; entities: number; edges: number; live_edges: number };
}

export interface IngestedOutcome {
  ingestion: IngestionSummary;
  /** Right after the last document was processed, then after the query cells. */
  statistics: GraphStatisticsSnapshot[];
  explain: ExplainOutcome | null;
  /** The questions file the query cells ran on (the tenant's API key left out). */
  questions: number;
  query: QueryBenchOutcome;
  /** With `thenAnalyze`: the statistics, plans and cells after an ANALYZE by hand. */
  analyzed?: { statistics: GraphStatisticsSnapshot; explain: ExplainOutcome | null; query: QueryBenchOutcome };
}

export async function runIngestedBench(options: IngestedBenchOptions): Promise<IngestedOutcome> {
  const log = options.log ?? (() => undefined);
  const started = new Date();
  const tenant = await createIngestTenant(options.databaseUrl, options.seed);
  try {
    const target = { url: options.target.url, apiKey: tenant.apiKey };
    log(`tenant ${tenant.tenantId} (graph ${tenant.graphId}): uploading ${options.documents.length} documents to ${target.url}/v1/documents`);
    const uploadMs: number[] = [];
    for (const document of options.documents) {
      const t0 = performance.now();
      const response = await fetch(`${target.url}/v1/documents`, {
        method: 'POST',
        headers: jsonHeaders(target),
        body: JSON.stringify({ name: document.name, text: document.text, document_date: document.documentDate.toISOString() }),
      });
      const text = await response.text();
      if (response.status !== 202) throw new Error(`POST /v1/documents answered ${response.status}: ${text.slice(0, 500)}`);
      uploadMs.push(performance.now() - t0);
    }
    await waitUntilIngested(options.databaseUrl, tenant.tenantId, options.documents.length, options.ingestTimeoutMs ?? 60 * 60_000, log);
    const scope = { tenantId: tenant.tenantId, graphId: tenant.graphId };
    const afterIngestion = await graphStatistics(options.databaseUrl, scope, started, 'ingested');
    const rss = options.target.pid ? rssBytes(options.target.pid) : undefined;
    const ingestion = await ingestionSummary(options.databaseUrl, tenant, started, uploadMs, rss === undefined ? null : Math.round((rss / 1048576) * 10) / 10);
    log(
      `ingested ${ingestion.documents} documents (${ingestion.failed_documents} failed), ${ingestion.chunks} chunks in ${ingestion.elapsed_s} s ` +
        `(${ingestion.chunks_per_s} chunks/s): ${ingestion.graph.entities} entities, ${ingestion.graph.edges} edges` +
        (ingestion.api_rss_mb === null ? '' : `; the ingesting API's RSS ${ingestion.api_rss_mb} MB`),
    );
    const file = questionsFile(options, tenant, ingestion, options.databaseUrl);
    if (file.questions.length === 0) throw new Error('the corpus states no live fact to ask about');
    const explainPlans = () => (options.checkCount > 0 ? runExplainBench({ file, databaseUrl: options.databaseUrl, count: Math.min(options.checkCount, file.questions.length) }) : null);
    const explain = await explainPlans();
    const answering = options.queryTarget ? await options.queryTarget() : options.target;
    const queryCells = () =>
      runQueryBench({
        scenarios: ['query-floor', 'query-context'],
        file,
        databaseUrl: options.databaseUrl,
        poolMax: options.poolMax,
        modes: options.modes,
        concurrencies: options.concurrencies,
        durationS: options.durationS,
        checkCount: options.checkCount,
        target: { url: answering.url, apiKey: tenant.apiKey, pid: answering.pid },
        log,
      });
    const query = await queryCells();
    const afterQueries = await graphStatistics(options.databaseUrl, scope, started, 'after the query cells');
    const outcome: IngestedOutcome = { ingestion, statistics: [afterIngestion, afterQueries], explain, questions: file.questions.length, query };
    if (!options.thenAnalyze) return outcome;
    // The same plans and cells once the graph tables are analyzed by hand: what statistics as
    // Loci left them cost, measured in the same run.
    await withClient(options.databaseUrl, (client) => client.query(`ANALYZE ${GRAPH_SCAN_TABLES.map((t) => `"${t}"`).join(', ')}`));
    log('ANALYZE of the graph tables by hand; the plans and the cells again:');
    const analyzed = await graphStatistics(options.databaseUrl, scope, started, 'after ANALYZE by hand');
    return { ...outcome, analyzed: { statistics: analyzed, explain: await explainPlans(), query: await queryCells() } };
  } finally {
    if (!options.keepTenant) await deleteTenant(options.databaseUrl, tenant.tenantId);
  }
}

interface IngestTenant {
  tenantId: string;
  graphId: number;
  apiKey: string;
}

/** A tenant for the run with its default graph and a read-write API key (as bench:seed makes its large tenant's). */
async function createIngestTenant(databaseUrl: string, seed: number): Promise<IngestTenant> {
  const database = PostgresDatabase.connect(databaseUrl, 1);
  try {
    await database.migrate(findMigrationsFolder());
    const tenant = await new TenantsRepository(database).create({ name: `bench-ingested-s${seed}-${Date.now()}`, tier: 'enterprise', billing: 'platform' });
    const graph = await new GraphsRepository(database).defaultGraph(tenant.id);
    const key = await new ApiKeysService(new ApiKeysRepository(database)).create(tenant.id, `bench query-ingested ${seed}`, null);
    return { tenantId: tenant.id, graphId: graph.id, apiKey: key.key };
  } finally {
    await database.close();
  }
}

async function withClient<T>(databaseUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const deleteTenant = (databaseUrl: string, tenantId: string) => withClient(databaseUrl, (client) => client.query('DELETE FROM tenants WHERE id = $1', [tenantId]));

/** Polls until every document of the tenant is processed or failed. */
async function waitUntilIngested(databaseUrl: string, tenantId: string, expected: number, timeoutMs: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let reported = Date.now();
  await withClient(databaseUrl, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ done: string; chunks: string }>(
        `SELECT count(*) FILTER (WHERE status IN ('processed', 'failed')) AS done, coalesce(sum(chunks_done), 0) AS chunks FROM documents WHERE tenant_id = $1`,
        [tenantId],
      );
      const done = Number(rows[0].done);
      if (done >= expected) return;
      if (Date.now() > deadline) throw new Error(`query-ingested: ${done} of ${expected} documents ingested after ${timeoutMs / 1000} s`);
      if (Date.now() - reported > 30_000) {
        reported = Date.now();
        log(`  ${done} of ${expected} documents ingested, ${rows[0].chunks} chunks`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  });
}

async function ingestionSummary(databaseUrl: string, tenant: IngestTenant, started: Date, uploadMs: number[], apiRssMb: number | null): Promise<IngestionSummary> {
  return withClient(databaseUrl, async (client) => {
    const one = async (text: string) => (await client.query(text, [tenant.tenantId, tenant.graphId])).rows[0];
    const documents = await one(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'failed')::int AS failed, coalesce(sum(chunks_done), 0)::int AS chunks, max(processed_at) AS last
       FROM documents WHERE tenant_id = $1 AND graph_id = $2`,
    );
    const count = async (table: string, extra = '') => Number((await one(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = $1 AND graph_id = $2${extra}`)).n);
    const elapsedS = Math.max(0.001, ((documents.last as Date | null)?.getTime() ?? Date.now()) - started.getTime()) / 1000;
    return {
      documents: documents.n,
      failed_documents: documents.failed,
      chunks: documents.chunks,
      elapsed_s: round(elapsedS),
      chunks_per_s: round(documents.chunks / elapsedS),
      upload_latency_ms: summarize(uploadMs),
      api_rss_mb: apiRssMb,
      graph: {
        tenant_id: tenant.tenantId,
        graph_id: tenant.graphId,
        documents: documents.n,
        chunks: await count('chunks'),
        entities: await count('entities'),
        edges: await count('edges'),
        live_edges: await count('edges', ' AND expired_at IS NULL'),
      },
    };
  });
}

/**
 * Questions about the live facts the corpus states (as bench:seed writes them: the subject's
 * name as the low-level keywords, the relation's theme as the high-level ones), in the shape of
 * a questions file so the query and explain scenarios run on it unchanged. Which edge the local
 * extractor made of a fact is not known, so `edge_id` is 0; `answer_found` reads the target's name.
 */
function questionsFile(options: IngestedBenchOptions, tenant: IngestTenant, ingestion: IngestionSummary, databaseUrl: string): QuestionsFile {
  const reservoir = new Reservoir<BenchQuestion>(options.questions ?? 200, createRng(options.seed, 'questions'));
  for (const document of options.documents) {
    for (const fact of document.facts) {
      if (fact.state === 'superseded') continue;
      reservoir.offer({
        query: fact.template.question(fact.source.name),
        hl_keywords: [...fact.template.keywords],
        ll_keywords: [fact.source.name],
        answer: { edge_id: 0, document_id: 0, relation: fact.template.relation, source: fact.source.name, target: fact.target.name, ended: fact.invalidAt !== null },
      });
    }
  }
  return {
    version: 1,
    seed: options.seed,
    edges: ingestion.graph.edges,
    tenants: 1,
    created_at: new Date().toISOString(),
    database: describeDatabase(databaseUrl),
    large_tenant: {
      tenant_id: tenant.tenantId,
      graph_id: tenant.graphId,
      api_key: tenant.apiKey,
      edges: ingestion.graph.edges,
      entities: ingestion.graph.entities,
      chunks: ingestion.graph.chunks,
      documents: ingestion.graph.documents,
    },
    small_tenants: [],
    questions: reservoir.items,
  };
}

const round = (x: number) => Math.round(x * 100) / 100;
