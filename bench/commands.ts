import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { loadSettings } from '@loci/config';
import { EDGES_PER_ENTITY_HIT } from '../libs/retrieval/src/retrieval.service';
import { DEFAULT_TOP_K, RetrievalMode } from '../libs/retrieval/src/retrieval.types';
import { describeDatabase, readQuestionsFile } from './questions';
import { BenchHeader, describeDataset, describeMachine, summaryLines } from './report';
import { ApiProcess, npmStartNodeFlags, RssSampler, startApi } from './scenarios/api-process';
import { explainLines, runExplainBench } from './scenarios/explain';
import { statisticsLines } from './scenarios/graph-statistics';
import { checkGb, gbCellLine, gbDoubleAnswer, GbCell, gbQuestionsOf, gbStepTimings, runGbCell } from './scenarios/gb-query';
import { benchDocuments, IngestProvider, runIngestBench } from './scenarios/ingest';
import { LimitsLayer, LimitsStoreKind, runLimitsBench } from './scenarios/limits';
import { aloneTable, neighboursTable, type NeighboursPhase, runAloneOnly, runNeighboursBench, TARGETS } from './scenarios/neighbours';
import { DOUBLE_MODEL, startModelDouble } from './scenarios/model-double';
import { API_RSS_LIMIT_MB, runQueryBench } from './scenarios/query';
import { runIngestedBench } from './scenarios/query-ingested';
import type { QueryScenario } from './scenarios/types';
import { BENCH_EMBEDDING_MODEL } from './store-writer';

/** How the bench starts the API, for its reports: as `npm start` does. */
const API_COMMAND = ['node', ...npmStartNodeFlags(), 'dist/apps/api/src/main.js'].join(' ');

/**
 * One function per scenario of `npm run bench`: runs it with the parsed options, prints its
 * lines and returns the results file's content (run.ts writes it).
 */

export type Out = (line: string) => void;
export type Report = BenchHeader & Record<string, unknown>;

export interface CommonConfig {
  questionsFile?: string;
  concurrencies: number[];
  durationS: number;
  checkCount: number;
  poolMax: number;
  logLevel: string;
  databaseUrl?: string;
  redisUrl?: string;
}

const afterLoad = () => loadavg().map((x) => Math.round(x * 100) / 100);

async function seeded(config: CommonConfig, out: Out, scenario: string) {
  if (!config.databaseUrl) throw new UsageFailure('DATABASE_URL is not set (the database bench:seed wrote to).');
  if (!config.questionsFile) throw new UsageFailure('no questions file: run npm run bench:seed first');
  const file = readQuestionsFile(config.questionsFile);
  if (file.database !== describeDatabase(config.databaseUrl)) {
    out(`warning: ${config.questionsFile} was seeded into ${file.database}, DATABASE_URL is ${describeDatabase(config.databaseUrl)}`);
  }
  const machine = await describeMachine(config.databaseUrl);
  const dataset = await describeDataset(config.databaseUrl, file, config.questionsFile);
  out(`machine: ${machine.cpus} cpus, ${machine.memory_mb} MB, load ${machine.load_average.join(' ')}, node ${machine.node}, pgvector ${machine.pgvector} (${scenario})`);
  return { file, machine, dataset, databaseUrl: config.databaseUrl };
}

/** A precondition the user can fix (printed without a stack, exit 2). */
export class UsageFailure extends Error {}

export async function runQueryCommand(
  config: CommonConfig & { scenario: string; scenarios: QueryScenario[]; modes: RetrievalMode[]; apiMain?: string },
  out: Out,
): Promise<Report> {
  const { file, machine, dataset, databaseUrl } = await seeded(config, out, config.scenario);
  out(
    `bench ${config.scenario}: ${dataset.large_tenant.edges} edges in the large tenant (${file.edges} seeded over ${file.tenants} tenants), ` +
      `${file.questions.length} questions, modes ${config.modes.join(',')}, concurrency ${config.concurrencies.join(',')}, ${config.durationS} s a cell`,
  );
  let api: ApiProcess | undefined;
  let baseline: ApiProcess | undefined;
  try {
    if (config.scenarios.includes('query-context')) {
      api = await startApi({ databaseUrl, redisUrl: config.redisUrl, logLevel: config.logLevel, poolMax: config.poolMax });
      out(`API pid ${api.pid} at ${api.url} (log: ${api.logPath})`);
      if (config.apiMain) {
        baseline = await startApi({ databaseUrl, redisUrl: config.redisUrl, logLevel: config.logLevel, poolMax: config.poolMax, apiMain: config.apiMain });
        out(`baseline API (${config.apiMain}) pid ${baseline.pid} at ${baseline.url} (log: ${baseline.logPath})`);
      }
    }
    const outcome = await runQueryBench({
      scenarios: config.scenarios,
      file,
      databaseUrl,
      poolMax: config.poolMax,
      modes: config.modes,
      concurrencies: config.concurrencies,
      durationS: config.durationS,
      checkCount: config.checkCount,
      target: api ? { url: api.url, apiKey: file.large_tenant.api_key, pid: api.pid } : undefined,
      baseline: baseline ? { url: baseline.url, apiKey: file.large_tenant.api_key, pid: baseline.pid } : undefined,
      log: out,
    });
    out('');
    for (const line of summaryLines(outcome)) out(line);
    return {
      scenario: config.scenario,
      created_at: new Date().toISOString(),
      dataset,
      machine: { ...machine, load_average_after: afterLoad() },
      settings: {
        duration_s: config.durationS,
        concurrencies: config.concurrencies,
        modes: config.modes,
        check_questions: config.checkCount,
        pool_max: config.poolMax,
        top_k: DEFAULT_TOP_K,
        embedding_model: BENCH_EMBEDDING_MODEL,
        load_generator: config.scenarios.includes('query-context') ? 'autocannon (this process), loopback' : null,
        api: api ? { process: `child: ${API_COMMAND}`, env: api.env } : null,
        ...(config.apiMain ? { baseline_api_main: config.apiMain } : {}),
      },
      ...outcome,
    };
  } finally {
    await api?.stop();
    await baseline?.stop();
  }
}

export async function runGbCommand(config: CommonConfig, out: Out): Promise<Report> {
  const { file, machine, dataset, databaseUrl } = await seeded(config, out, 'gb-query');
  const questions = gbQuestionsOf(file);
  const gb = file.gb!;
  out(`bench gb-query: dataset ${gb.user_id}/${gb.dataset} with ${dataset.gb?.edges} edges, ${questions.length} questions, concurrency ${config.concurrencies.join(',')}, ${config.durationS} s a cell`);
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-bench-double-'));
  let lastContext = '';
  const double = await startModelDouble(dataDir, (userText) => {
    lastContext = userText;
    return gbDoubleAnswer(userText);
  });
  let api: ApiProcess | undefined;
  try {
    api = await startApi({
      databaseUrl,
      redisUrl: config.redisUrl,
      logLevel: config.logLevel,
      poolMax: config.poolMax,
      extraEnv: { ...double.env, LOCI_QUERY_MODEL: DOUBLE_MODEL },
    });
    out(`API pid ${api.pid} at ${api.url} (log: ${api.logPath}); query stage: ${DOUBLE_MODEL} on the LLM double at ${double.double.anthropicBaseUrl}, no delay`);
    const target = { url: api.url, apiKey: file.large_tenant.api_key, userId: gb.user_id, dataset: gb.dataset };
    const check = await checkGb(target, questions, config.checkCount, () => lastContext);
    out(`check gb-query ${check.ok}/${check.requests} ok, answer entity in the context ${Math.round(check.answer_in_context * 100)}%, no information ${Math.round(check.no_information * 100)}%, ~${check.mean_bytes} bytes`);
    const rss = new RssSampler(api.pid).start();
    const cells: GbCell[] = [];
    for (const concurrency of config.concurrencies) {
      const from = new Date();
      const cell = await runGbCell(target, questions, concurrency, config.durationS);
      const to = new Date();
      const full = { ...cell, steps: await gbStepTimings(databaseUrl, file.large_tenant.tenant_id, from, to) };
      cells.push(full);
      out(gbCellLine(full));
    }
    const memory = rss.stop();
    out(`API RSS: ${memory.baseline_mb} MB before the load, peak ${memory.peak_mb} MB, mean ${memory.mean_mb} MB; model calls answered by the double: ${double.answered()}`);
    return {
      scenario: 'gb-query',
      created_at: new Date().toISOString(),
      dataset,
      machine: { ...machine, load_average_after: afterLoad() },
      settings: {
        duration_s: config.durationS,
        concurrencies: config.concurrencies,
        check_questions: config.checkCount,
        pool_max: config.poolMax,
        query_model: `${DOUBLE_MODEL} (LLM double in the bench process, loopback, no delay, priced 0)`,
        embedding_model: BENCH_EMBEDDING_MODEL,
        load_generator: 'autocannon (this process), loopback',
        api: { process: `child: ${API_COMMAND}`, env: api.env },
      },
      checks: [check],
      cells,
      api_rss: { ...memory, limit_mb: API_RSS_LIMIT_MB, within_limit: memory.peak_mb < API_RSS_LIMIT_MB },
      model_calls: double.answered(),
    };
  } finally {
    await api?.stop();
    await double.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runExplainCommand(config: CommonConfig, out: Out): Promise<Report> {
  if (config.checkCount === 0) throw new UsageFailure('--check 0 explains no question: give --check 1 or more.');
  const { file, machine, dataset, databaseUrl } = await seeded(config, out, 'explain');
  const count = Math.min(config.checkCount, file.questions.length);
  out(`bench explain: ${dataset.large_tenant.edges} edges in the large tenant, the mix statements of ${count} questions under EXPLAIN (ANALYZE, BUFFERS), one connection`);
  const outcome = await runExplainBench({ file, databaseUrl, count });
  for (const line of explainLines(outcome)) out(line);
  return {
    scenario: 'explain',
    created_at: new Date().toISOString(),
    dataset,
    machine: { ...machine, load_average_after: afterLoad() },
    settings: {
      check_questions: count,
      mode: 'mix',
      top_k: DEFAULT_TOP_K,
      edges_per_entity_hit: EDGES_PER_ENTITY_HIT,
      explain: 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON), then the statement itself for its rows',
      connection: 'one pg Client, URL through withSessionSettings; statements one after another',
      embedding_model: BENCH_EMBEDDING_MODEL,
    },
    ...outcome,
  };
}

export async function runLimitsCommand(config: CommonConfig & { layers: LimitsLayer[]; stores: LimitsStoreKind[] }, out: Out): Promise<Report> {
  // SpendControl logs each counter it builds from the ledger; the cell lines are the output here.
  Logger.overrideLogger(['error', 'warn']);
  const machine = await describeMachine(config.databaseUrl);
  out(`bench limits: layers ${config.layers.join(',')}, stores ${config.stores.join(',')}, concurrency ${config.concurrencies.join(',')}, ${config.durationS} s a cell`);
  out(`machine: ${machine.cpus} cpus, ${machine.memory_mb} MB, load ${machine.load_average.join(' ')}, node ${machine.node}`);
  const outcome = await runLimitsBench({
    layers: config.layers,
    stores: config.stores,
    concurrencies: config.concurrencies,
    durationS: config.durationS,
    redisUrl: config.redisUrl,
    databaseUrl: config.databaseUrl,
    log: (line) => out(line),
  });
  for (const s of outcome.skipped) out(`skipped ${s.layer} on ${s.store}: ${s.reason}`);
  return {
    scenario: 'limits',
    label: config.stores.join('+'),
    created_at: new Date().toISOString(),
    machine: { ...machine, load_average_after: afterLoad() },
    settings: {
      duration_s: config.durationS,
      concurrencies: config.concurrencies,
      layers: config.layers,
      stores: config.stores,
      redis: config.redisUrl ? 'REDIS_URL (loopback)' : null,
      round_trips_counted_by: "wrapping the ioredis client's sendCommand (one command = one round trip: no pipelining)",
    },
    ...outcome,
  };
}

export async function runIngestCommand(
  config: CommonConfig & {
    providers: IngestProvider[];
    workerConcurrencies: number[];
    modelConcurrency?: number;
    modelDelayMs: number;
    documents: number;
    documentChunks: number;
    seed: number;
    bulk: boolean;
  },
  out: Out,
): Promise<Report> {
  if (!config.databaseUrl) throw new UsageFailure('DATABASE_URL is not set (ingestion writes PostgreSQL).');
  const machine = await describeMachine(config.databaseUrl);
  out(
    `bench ingest: ${config.documents} documents of ~${config.documentChunks} chunks, providers ${config.providers.join(',')} ` +
      `(double: +${config.modelDelayMs} ms a call), worker concurrency ${config.workerConcurrencies.join(',')}`,
  );
  out(`machine: ${machine.cpus} cpus, ${machine.memory_mb} MB, load ${machine.load_average.join(' ')}, node ${machine.node}, pgvector ${machine.pgvector}`);
  const outcome = await runIngestBench({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    providers: config.providers,
    workerConcurrencies: config.workerConcurrencies,
    modelConcurrency: config.modelConcurrency,
    modelDelayMs: config.modelDelayMs,
    documents: config.documents,
    documentChunks: config.documentChunks,
    seed: config.seed,
    bulk: config.bulk,
    logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel,
    log: (line) => out(line),
  });
  return {
    scenario: 'ingest',
    label: `${config.documents}docs`,
    created_at: new Date().toISOString(),
    machine: { ...machine, load_average_after: afterLoad() },
    settings: {
      documents: config.documents,
      document_chunks: config.documentChunks,
      providers: config.providers,
      model_delay_ms: config.modelDelayMs,
      worker_concurrencies: config.workerConcurrencies,
      model_concurrency: config.modelConcurrency ?? 'LOCI_MODEL_CONCURRENCY (default 8)',
      embedding_model: BENCH_EMBEDDING_MODEL,
      // The worker inherits LOCI_*: at 256 its vectors go to the 256-wide columns (issue 16.1).
      local_embedding_dim: process.env.LOCI_LOCAL_EMBEDDING_DIM ?? '1024 (default)',
      double_model: DOUBLE_MODEL,
      pipeline: 'in this process: WorkerModule (apps/worker), DocumentsService.submit + IngestWorker',
      seed: config.seed,
      bulk: config.bulk ? 'each cell as usual, then in bulk mode (BulkLoadService.begin before, finish after)' : false,
    },
    ...outcome,
  };
}

export async function runQueryIngestedCommand(
  config: CommonConfig & { modes: RetrievalMode[]; documents: number; documentChunks: number; seed: number; thenAnalyze: boolean },
  out: Out,
): Promise<Report> {
  if (!config.databaseUrl) throw new UsageFailure('DATABASE_URL is not set (the API ingests into it: an empty migrated database, or a seeded one to ingest beside its tenants).');
  // The API's chunker cuts the texts with these settings (LOCI_* pass through to it).
  const chunking = loadSettings(Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LOCI_')))).ingest;
  const documents = benchDocuments(config, chunking.chunkTokens - chunking.chunkOverlapTokens);
  out(
    `bench query-ingested: ${documents.length} documents of ~${config.documentChunks} chunks (seed ${config.seed}) uploaded to the API, then modes ${config.modes.join(',')}, ` +
      `concurrency ${config.concurrencies.join(',')}, ${config.durationS} s a cell`,
  );
  // The API ingests with its in-process worker (the embedded default's arrangement) and the local providers.
  const apiOptions = { databaseUrl: config.databaseUrl, redisUrl: config.redisUrl, logLevel: config.logLevel, poolMax: config.poolMax };
  // Ingestion only: the store's other rows are not to be moved to another offline width meanwhile.
  let api = await startApi({ ...apiOptions, extraEnv: { LOCI_RUN_WORKER: 'true', LOCI_MOVE_LOCAL_VECTORS: 'false' } });
  const ingestingEnv = api.env;
  // After the API's boot: it migrates an empty database (pgvector's version is read from it).
  const machine = await describeMachine(config.databaseUrl);
  out(`machine: ${machine.cpus} cpus, ${machine.memory_mb} MB, load ${machine.load_average.join(' ')}, node ${machine.node}, pgvector ${machine.pgvector}`);
  out(`API pid ${api.pid} at ${api.url} (log: ${api.logPath})`);
  try {
    const outcome = await runIngestedBench({
      databaseUrl: config.databaseUrl,
      target: { url: api.url, pid: api.pid },
      // The cells on an API started afresh with the worker off, as in query: they compare the graphs.
      queryTarget: async () => {
        await api.stop();
        api = await startApi(apiOptions);
        out(`API for the query cells: pid ${api.pid} at ${api.url} (log: ${api.logPath})`);
        return { url: api.url, pid: api.pid };
      },
      documents,
      seed: config.seed,
      modes: config.modes,
      concurrencies: config.concurrencies,
      durationS: config.durationS,
      checkCount: config.checkCount,
      poolMax: config.poolMax,
      thenAnalyze: config.thenAnalyze,
      log: out,
    });
    out('');
    for (const line of statisticsLines(outcome.statistics[0])) out(line);
    if (outcome.explain) for (const line of explainLines(outcome.explain)) out(line);
    for (const line of summaryLines(outcome.query)) out(line);
    for (const line of statisticsLines(outcome.statistics[1])) out(line);
    if (outcome.analyzed) {
      out('');
      for (const line of statisticsLines(outcome.analyzed.statistics)) out(line);
      if (outcome.analyzed.explain) for (const line of explainLines(outcome.analyzed.explain)) out(line);
      for (const line of summaryLines(outcome.analyzed.query)) out(line);
    }
    return {
      scenario: 'query-ingested',
      label: `${outcome.ingestion.graph.edges}`,
      created_at: new Date().toISOString(),
      machine: { ...machine, load_average_after: afterLoad() },
      settings: {
        documents: config.documents,
        document_chunks: config.documentChunks,
        seed: config.seed,
        then_analyze: config.thenAnalyze,
        duration_s: config.durationS,
        concurrencies: config.concurrencies,
        modes: config.modes,
        check_questions: config.checkCount,
        pool_max: config.poolMax,
        top_k: DEFAULT_TOP_K,
        embedding_model: BENCH_EMBEDDING_MODEL,
        ingestion: 'POST /v1/documents (JSON, API key), the API\'s in-process worker (LOCI_RUN_WORKER=true), local providers',
        load_generator: 'autocannon (this process), loopback',
        api: { process: `child: ${API_COMMAND}; one that ingests, then a fresh one for the query cells`, ingesting_env: ingestingEnv, env: api.env },
      },
      ...outcome,
    };
  } finally {
    await api.stop();
  }
}

export interface NeighboursConfig extends CommonConfig {
  quick: boolean;
  mode: RetrievalMode;
  phaseS: number;
  bRate: number;
  backlog: number;
  aloneDocuments: number;
  keepDatabase: boolean;
  /** Whether questions bring their keyword lists (`--no-keywords`: not). */
  ownKeywords: boolean;
  /** Only A alone (enterprise, no PATCH), on `apiMain`'s build when given. */
  aloneOnly: boolean;
  phases: ReadonlySet<NeighboursPhase>;
  apiMain?: string;
}

/**
 * `neighbours` (issue 34.5): a scratch database made on DATABASE_URL's server (dropped after),
 * the API started on it with its in-process worker, PostgreSQL and Redis, the local providers;
 * then bench/scenarios/neighbours.ts.
 */
export async function runNeighboursCommand(config: NeighboursConfig, out: Out): Promise<Report> {
  const server = config.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const scratch = `loci_bench_neighbours_${Date.now().toString(36)}`;
  const scratchUrl = withDatabase(server, scratch);
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${scratch}"`);
  await admin.end();
  const chunking = loadSettings(Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LOCI_')))).ingest;
  const tokensPerChunk = chunking.chunkTokens - chunking.chunkOverlapTokens;
  const bCorpus = benchDocuments({ documents: config.quick ? 8 : 20, documentChunks: 2, seed: 11 }, tokensPerChunk);
  const aCorpus = benchDocuments({ documents: config.backlog, documentChunks: 1, seed: 12 }, tokensPerChunk);
  const aAlone = benchDocuments({ documents: config.aloneDocuments, documentChunks: 1, seed: 13 }, tokensPerChunk);
  const operator = { email: 'bench-operator@loci.invalid', password: randomBytes(18).toString('base64url') };
  let api: ApiProcess | undefined;
  const loadBefore = afterLoad();
  try {
    api = await startApi({
      databaseUrl: scratchUrl,
      redisUrl: config.redisUrl,
      logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel,
      poolMax: config.poolMax,
      apiMain: config.apiMain,
      extraEnv: {
        LOCI_RUN_WORKER: 'true',
        LOCI_MOVE_LOCAL_VECTORS: 'false',
        LOCI_BOOTSTRAP_OPERATOR_EMAIL: operator.email,
        LOCI_BOOTSTRAP_OPERATOR_PASSWORD: operator.password,
      },
    });
    const machine = await describeMachine(scratchUrl);
    out(
      `bench neighbours${config.quick ? ' (quick)' : ''}${config.aloneOnly ? ` --alone-only on ${config.apiMain ?? 'this build'}: A's graph ${aCorpus.length} documents; ` : ': '}B asks ${config.bRate}/s (${config.mode}, context only) for ${config.phaseS} s a phase; ` +
        `A's backlog ${aCorpus.length} documents, A alone ${aAlone.length} documents a pass`,
    );
    out(`machine: ${machine.cpus} cpus, ${machine.memory_mb} MB, load ${machine.load_average.join(' ')}, node ${machine.node}, pgvector ${machine.pgvector}`);
    out(`API pid ${api.pid} at ${api.url} (log: ${api.logPath}), scratch database ${scratch}, Redis ${config.redisUrl ? 'yes' : 'no (in-process limits)'}`);
    const benchOptions = {
      url: api.url,
      databaseUrl: scratchUrl,
      operator,
      mode: config.mode,
      phaseS: config.phaseS,
      bRate: config.bRate,
      bCorpus,
      aCorpus,
      aAloneDocuments: aAlone,
      aUploadConcurrency: 4,
      aQueryConcurrency: 16,
      pdf: config.quick ? { textPages: 10, readPages: 10, readLinesPerPage: 8_000 } : { textPages: 30, readPages: 20, readLinesPerPage: 20_000 },
      drainCapS: config.quick ? 30 : 120,
      docTimeoutS: 120,
      phases: config.phases,
      ownKeywords: config.ownKeywords,
      log: out,
    };
    const settings = {
      quick: config.quick,
      mode: config.mode,
      context_only: true,
      questions_bring_keywords: config.ownKeywords,
      phase_s: config.phaseS,
      a_upload_concurrency: 4,
      a_query_concurrency: 16,
      a_alone_documents: aAlone.length,
      pool_max: config.poolMax,
      api: { process: `child: ${config.apiMain ? `node <npm start flags> ${config.apiMain}` : API_COMMAND}, in-process worker (LOCI_RUN_WORKER=true), local providers`, env: api.env },
      database: `scratch ${scratch} on ${describeDatabase(server)}${config.keepDatabase ? ' (kept)' : ' (dropped)'}`,
    };
    if (config.aloneOnly) {
      const alone = await runAloneOnly(benchOptions, 2);
      out('');
      for (const line of aloneTable(alone)) out(line);
      const loadAfter = afterLoad();
      out(`load average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}`);
      return {
        scenario: 'neighbours',
        label: `alone-${config.apiMain ? 'other-build' : 'this-build'}`,
        created_at: new Date().toISOString(),
        machine: { ...machine, load_average: loadBefore, load_average_after: loadAfter },
        settings: { ...settings, alone_only: true, api_main: config.apiMain ?? 'this checkout', a_graph_documents: aCorpus.length },
        alone_table: aloneTable(alone),
        ...alone,
      };
    }
    const outcome = await runNeighboursBench(benchOptions);
    out('');
    for (const line of neighboursTable(outcome)) out(line);
    out('');
    for (const line of aloneTable(outcome)) out(line);
    const loadAfter = afterLoad();
    out(`load average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}`);
    return {
      scenario: 'neighbours',
      label: config.quick ? 'quick' : `${config.backlog}backlog`,
      created_at: new Date().toISOString(),
      machine: { ...machine, load_average: loadBefore, load_average_after: loadAfter },
      settings: {
        ...settings,
        b_rate_per_s: config.bRate,
        b_corpus_documents: bCorpus.length,
        a_backlog_documents: aCorpus.length,
        targets: TARGETS,
      },
      table: neighboursTable(outcome),
      alone_table: aloneTable(outcome),
      ...outcome,
    };
  } finally {
    await api?.stop();
    if (!config.keepDatabase) {
      const cleanup = new Client({ connectionString: server });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`).catch(() => undefined);
      await cleanup.end();
    }
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
