import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { defaultWorkerConcurrency } from '../libs/config/src/settings';
import { RETRIEVAL_MODES, RetrievalMode } from '../libs/retrieval/src/retrieval.types';
import { choiceList, integer, integerList, parse, UsageError } from './args';
import {
  CommonConfig,
  Report,
  runExplainCommand,
  runGbCommand,
  runIngestCommand,
  runLimitsCommand,
  runNeighboursCommand,
  runQueryCommand,
  runQueryIngestedCommand,
  UsageFailure,
} from './commands';
import { findQuestionsFile } from './questions';
import { writeReport } from './report';
import { INGEST_PROVIDERS, IngestProvider } from './scenarios/ingest';
import { LIMITS_LAYERS, LIMITS_STORES, LimitsLayer, LimitsStoreKind } from './scenarios/limits';
import { NEIGHBOURS_PHASES, type NeighboursPhase } from './scenarios/neighbours';
import type { QueryScenario } from './scenarios/types';

const QUERY_SCENARIOS: Record<string, QueryScenario[]> = {
  'query-context': ['query-context'],
  'query-floor': ['query-floor'],
  query: ['query-floor', 'query-context'],
};
const SCENARIOS = [...Object.keys(QUERY_SCENARIOS), 'query-ingested', 'gb-query', 'explain', 'limits', 'ingest', 'neighbours'];
/** Scenarios that read the seeded database's questions file. */
const SEEDED = [...Object.keys(QUERY_SCENARIOS), 'gb-query', 'explain'];

export const BENCH_USAGE = `Usage: npm run bench -- <scenario> [--edges E] [options]

Scenarios:
  query-context   POST /v1/query with the seeded API key (context_only, both keyword lists)
                  against the API started as a child process (node dist/apps/api/src/main.js)
  query-floor     the same retrieval statements sent with plain pg: no HTTP, no Nest
  query           both, cell by cell, with the Loci/floor ratios
  query-ingested  a graph built through the API instead: a fresh tenant uploads --documents
                  generated texts (POST /v1/documents), the API's in-process worker ingests
                  them with the local providers; then the planner's row estimates of the
                  graph against its counted rows and each table's analyze history, the mix
                  plans under EXPLAIN, and query's cells (floor and Loci) on questions from the
                  texts' facts; the tenant is deleted afterwards
  gb-query        POST /v1/gb/query on the seeded gb dataset, the query stage answered at once
                  by the LLM double (in this process); per-step timings from the request log
  explain         the floor's statements of a mix question under EXPLAIN (ANALYZE, BUFFERS),
                  one connection, --check questions: time, planning, buffers hit/read, HNSW used
  limits          spend control per limited request: LimitStore calls and SpendControl
                  (admit, reserve, settle, release), Redis and in-process; µs and round trips
  ingest          chunks per second through DocumentsService.submit + IngestWorker, local
                  provider and the LLM double with --model-delay per call
  neighbours      noisy neighbours (issue 34.5): tenant B's question latency and one-document
                  wait alone, then while tenant A has --backlog documents queued, uploads heavy
                  PDFs, floods questions at concurrency 16; then A alone with its limits on and
                  off. A scratch database on DATABASE_URL's server (default
                  postgres://postgres@127.0.0.1:5432/postgres), dropped afterwards; the API with
                  its in-process worker and local providers. --quick: a short smoke run

Needs DATABASE_URL (query, query-context/-floor, gb-query, explain: the seeded database; ingest,
query-ingested: any database, migrated on the way;
limits: for the spend-control layer). REDIS_URL: the API's and the limits' Redis when set. LOCI_BENCH_API_NODE_ARGS: node flags for the API
child (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
query, query-context, query-floor, gb-query and explain read bench/data/questions-<seed>-<edges>.json written by npm run bench:seed.

Options:
  --edges <n>          which seed to use (default: the newest questions file)
  --seed <n>           which seed to use (default 1 with --edges; ingest, query-ingested: the texts' seed)
  --questions <file>   a questions file instead
  --concurrency <list> e.g. 1,16 (default 1,16)
  --duration <s>       seconds per cell (default 10)
  --modes <list>       query*: of ${RETRIEVAL_MODES.join(',')} (default all)
  --check <n>          questions asked one by one per mode before the load (default 20);
                       explain, query-ingested: the questions explained
  --pool-max <n>       pool of the floor and of the API (default $LOCI_DB_POOL_MAX or 10)
  --log-level <level>  the API's LOG_LEVEL (default info, as in production)
  --layers <list>      limits: of ${LIMITS_LAYERS.join(',')} (default both)
  --stores <list>      limits: of ${LIMITS_STORES.join(',')} (default both)
  --providers <list>   ingest: of ${INGEST_PROVIDERS.join(',')} (default both)
  --workers <list>     ingest: LOCI_WORKER_CONCURRENCY values (default $LOCI_WORKER_CONCURRENCY or the derived default, and 8)
  --model-concurrency <n>  ingest: LOCI_MODEL_CONCURRENCY (default the setting, 8)
  --model-delay <ms>   ingest: the double's latency per model call (default 300)
  --documents <n>      ingest: documents submitted per cell; query-ingested: documents uploaded (default 40)
                       neighbours: A's documents a pass of A alone (default 100; quick 20)
  --document-chunks <n> ingest, query-ingested: chunks per document, about (default 3)
  --bulk               ingest: each cell as usual and then in bulk mode (issue 16.3), side by side
  --then-analyze       query-ingested: then ANALYZE the graph tables by hand and run the plans
                       and the cells again (what the statistics Loci left cost)
  --quick              neighbours: a short smoke run (backlog 100, 8 s phases)
  --phase <s>          neighbours: seconds B is measured a phase (default 30; quick 8)
  --b-rate <n>         neighbours: B's questions a second (default 4)
  --backlog <n>        neighbours: A's queued documents in phase a (default 1000; quick 100)
  --mode <mode>        neighbours: the questions' mode (default mix)
  --phases <list>      neighbours: of quiet,a,b,c,alone (default all); without a, A's graph for c
                       and alone is uploaded and ingested first, unmeasured; with quiet, a and
                       b or c, B is measured alone again after a ("settled", a reference)
  --no-keywords        neighbours: questions without their keyword lists (the API reads them)
  --keep-db            neighbours: keep the scratch database
  --alone-only         neighbours: only tenant A alone (enterprise, no limit set) on a graph of
                       --backlog documents (default 150): questions/s at concurrency 16 and
                       --documents documents/s, two passes; with --api-main, on another build
  --api-main <path>    neighbours: another build's dist/apps/api/src/main.js (e.g. one before
                       issue 34, for "today's" numbers); query, query-context: that build's API
                       beside this one on the same database, every cell on both in turn, with
                       this/baseline ratios of latency, throughput and CPU a question
  --out <dir>          results folder (default bench/results)
  -h, --help           this text
`;

const OPTIONS = {
  edges: { type: 'string' },
  seed: { type: 'string' },
  questions: { type: 'string' },
  concurrency: { type: 'string' },
  duration: { type: 'string' },
  modes: { type: 'string' },
  check: { type: 'string' },
  'pool-max': { type: 'string' },
  'log-level': { type: 'string' },
  layers: { type: 'string' },
  stores: { type: 'string' },
  providers: { type: 'string' },
  workers: { type: 'string' },
  'model-concurrency': { type: 'string' },
  'model-delay': { type: 'string' },
  documents: { type: 'string' },
  'document-chunks': { type: 'string' },
  'then-analyze': { type: 'boolean' },
  bulk: { type: 'boolean' },
  quick: { type: 'boolean' },
  phase: { type: 'string' },
  'b-rate': { type: 'string' },
  backlog: { type: 'string' },
  mode: { type: 'string' },
  phases: { type: 'string' },
  'keep-db': { type: 'boolean' },
  'no-keywords': { type: 'boolean' },
  'alone-only': { type: 'boolean' },
  'api-main': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

function commonConfig(scenario: string, values: Values): CommonConfig {
  const edges = values.edges === undefined ? undefined : integer('edges', values.edges, 0, 1, 50_000_000);
  const seed = values.seed === undefined ? undefined : integer('seed', values.seed, 1, 0, 2 ** 31 - 1);
  return {
    questionsFile: SEEDED.includes(scenario) ? (values.questions ?? findQuestionsFile(join(process.cwd(), 'bench', 'data'), seed, edges)) : undefined,
    concurrencies: integerList('concurrency', values.concurrency, [1, 16], 1, 1024),
    durationS: integer('duration', values.duration, 10, 1, 3600),
    checkCount: integer('check', values.check, 20, 0, 10_000),
    poolMax: integer('pool-max', values['pool-max'] ?? process.env.LOCI_DB_POOL_MAX, 10, 1, 500),
    logLevel: values['log-level'] ?? 'info',
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
  };
}

async function dispatch(scenario: string, values: Values, out: (line: string) => void): Promise<Report> {
  const common = commonConfig(scenario, values);
  if (QUERY_SCENARIOS[scenario]) {
    const modes = choiceList<RetrievalMode>('modes', values.modes, RETRIEVAL_MODES, RETRIEVAL_MODES);
    if (!common.databaseUrl) throw new UsageFailure('DATABASE_URL is not set (the database bench:seed wrote to).');
    const apiMain = values['api-main'] === undefined ? undefined : resolve(values['api-main']);
    return runQueryCommand({ ...common, scenario, scenarios: QUERY_SCENARIOS[scenario], modes, apiMain }, out);
  }
  if (scenario === 'query-ingested') {
    if (!common.databaseUrl) throw new UsageFailure('DATABASE_URL is not set (the database the API ingests into).');
    return runQueryIngestedCommand(
      {
        ...common,
        modes: choiceList<RetrievalMode>('modes', values.modes, RETRIEVAL_MODES, RETRIEVAL_MODES),
        documents: integer('documents', values.documents, 40, 1, 100_000),
        documentChunks: integer('document-chunks', values['document-chunks'], 3, 1, 100),
        seed: integer('seed', values.seed, 1, 0, 2 ** 31 - 1),
        thenAnalyze: values['then-analyze'] ?? false,
      },
      out,
    );
  }
  if (scenario === 'gb-query') return runGbCommand(common, out);
  if (scenario === 'explain') return runExplainCommand(common, out);
  if (scenario === 'neighbours') {
    const quick = values.quick === true;
    return runNeighboursCommand(
      {
        ...common,
        quick,
        mode: choiceList<RetrievalMode>('mode', values.mode, RETRIEVAL_MODES, ['mix'])[0],
        phaseS: integer('phase', values.phase, quick ? 8 : 30, 3, 600),
        bRate: integer('b-rate', values['b-rate'], 4, 1, 50),
        backlog: integer('backlog', values.backlog, values['alone-only'] ? (quick ? 40 : 150) : quick ? 100 : 1000, 1, 100_000),
        aloneDocuments: integer('documents', values.documents, quick ? 20 : 100, 1, 10_000),
        keepDatabase: values['keep-db'] === true,
        ownKeywords: values['no-keywords'] !== true,
        aloneOnly: values['alone-only'] === true,
        phases: new Set(choiceList<NeighboursPhase>('phases', values.phases, NEIGHBOURS_PHASES, NEIGHBOURS_PHASES)),
        apiMain: values['api-main'] === undefined ? undefined : resolve(values['api-main']),
      },
      out,
    );
  }
  if (scenario === 'limits') {
    const layers = choiceList<LimitsLayer>('layers', values.layers, LIMITS_LAYERS, LIMITS_LAYERS);
    const stores = choiceList<LimitsStoreKind>('stores', values.stores, LIMITS_STORES, LIMITS_STORES);
    return runLimitsCommand({ ...common, layers, stores }, out);
  }
  const modelConcurrency =
    values['model-concurrency'] === undefined ? undefined : integer('model-concurrency', values['model-concurrency'], 8, 1, 256);
  // The worker's own default when LOCI_WORKER_CONCURRENCY is unset (the cells' pool is LOCI_DB_POOL_MAX's).
  const derived = defaultWorkerConcurrency({
    cores: availableParallelism(),
    modelConcurrency: modelConcurrency ?? integer('LOCI_MODEL_CONCURRENCY', process.env.LOCI_MODEL_CONCURRENCY || undefined, 8, 1, 256),
    poolMax: integer('LOCI_DB_POOL_MAX', process.env.LOCI_DB_POOL_MAX || undefined, 10, 1, 500),
  });
  const configured = integer('LOCI_WORKER_CONCURRENCY', process.env.LOCI_WORKER_CONCURRENCY || undefined, derived, 1, 64);
  return runIngestCommand(
    {
      ...common,
      providers: choiceList<IngestProvider>('providers', values.providers, INGEST_PROVIDERS, INGEST_PROVIDERS),
      workerConcurrencies: integerList('workers', values.workers, [...new Set([configured, 8])], 1, 64),
      modelConcurrency,
      modelDelayMs: integer('model-delay', values['model-delay'], 300, 0, 60_000),
      documents: integer('documents', values.documents, 40, 1, 100_000),
      documentChunks: integer('document-chunks', values['document-chunks'], 3, 1, 100),
      seed: integer('seed', values.seed, 1, 0, 2 ** 31 - 1),
      bulk: values.bulk === true,
    },
    out,
  );
}

async function main(argv: string[]): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const usage = (message: string) => {
    process.stderr.write(`bench: ${message}\n\n${BENCH_USAGE}`);
    return 2;
  };
  let scenario: string;
  let values: Values;
  try {
    const parsed = parse(argv, OPTIONS);
    values = parsed.values;
    if (values.help) {
      process.stdout.write(BENCH_USAGE);
      return 0;
    }
    const [first, ...extra] = parsed.positionals;
    if (!first) throw new UsageError('name a scenario');
    if (extra.length > 0) throw new UsageError(`one scenario at a time (got ${parsed.positionals.join(' ')})`);
    if (!SCENARIOS.includes(first)) throw new UsageError(`unknown scenario ${first}; available: ${SCENARIOS.join(', ')}`);
    scenario = first;
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    throw error;
  }
  let report: Report;
  try {
    report = await dispatch(scenario, values, out);
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message);
    if (error instanceof UsageFailure || (error instanceof Error && /questions file|bench:seed/.test(error.message))) {
      process.stderr.write(`bench: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  out(`results: ${writeReport(values.out ?? join(process.cwd(), 'bench', 'results'), report)}`);
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
