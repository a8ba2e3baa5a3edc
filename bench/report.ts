import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { QuestionsFile } from './questions';
import type { QueryBenchOutcome } from './scenarios/query';

/** PostgreSQL settings that move retrieval numbers; recorded with every result. */
const PG_SETTINGS = [
  'shared_buffers',
  'effective_cache_size',
  'work_mem',
  'maintenance_work_mem',
  'max_connections',
  'max_parallel_workers_per_gather',
  'random_page_cost',
  'jit',
  'hnsw.ef_search',
  'hnsw.iterative_scan',
  'hnsw.max_scan_tuples',
];

export interface MachineInfo {
  cpus: number;
  cpu_model: string;
  memory_mb: number;
  free_memory_mb: number;
  load_average: number[];
  platform: string;
  node: string;
  /** null when the scenario ran without a database. */
  postgres: string | null;
  pgvector: string | null;
  pg_settings: Record<string, string>;
}

export interface GraphCounts {
  live_edges: number;
  edges: number;
  entities: number;
  chunks: number;
  documents: number;
}

export interface DatasetInfo {
  questions_file: string;
  seed: number;
  edges: number;
  tenants: number;
  questions: number;
  large_tenant: GraphCounts;
  /** The large tenant's gb dataset, when the seed wrote one (documents are its texts). */
  gb?: GraphCounts & { user_id: string; dataset: string; questions: number };
  /** Rows in the whole store (all tenants): tenants counted, the graph tables as estimated after ANALYZE. */
  store_rows: Record<string, number>;
}

/** The machine, Node, and (with a database) PostgreSQL, pgvector and the settings that move retrieval. */
export async function describeMachine(databaseUrl?: string): Promise<MachineInfo> {
  const host = {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_mb: Math.round(totalmem() / 1048576),
    free_memory_mb: Math.round(freemem() / 1048576),
    load_average: loadavg().map((x) => Math.round(x * 100) / 100),
    platform: `${platform()} ${release()}`,
    node: process.version,
  };
  if (!databaseUrl) return { ...host, postgres: null, pgvector: null, pg_settings: {} };
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const version = (await client.query<{ version: string }>('SELECT version()')).rows[0].version;
    const vector = (await client.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`)).rows[0];
    if (vector) await client.query(`SELECT '[1]'::vector`); // loads pgvector so its hnsw.* settings are listed
    const settings = await client.query<{ name: string; value: string }>(
      'SELECT name, current_setting(name) AS value FROM pg_settings WHERE name = ANY($1) ORDER BY name',
      [PG_SETTINGS],
    );
    return { ...host, postgres: version, pgvector: vector?.extversion ?? null, pg_settings: Object.fromEntries(settings.rows.map((r) => [r.name, r.value])) };
  } finally {
    await client.end();
  }
}

/** What the seeded database holds for the benchmark: the large tenant (and its gb dataset) counted. */
export async function describeDataset(databaseUrl: string, file: QuestionsFile, questionsFile: string): Promise<DatasetInfo> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const graphCounts = async (tenantId: string, graphId: number) => {
      const count = async (sql: string) => Number((await client.query<{ n: string }>(sql, [tenantId, graphId])).rows[0].n);
      return {
        live_edges: await count('SELECT count(*) AS n FROM edges WHERE tenant_id = $1 AND graph_id = $2 AND expired_at IS NULL'),
        edges: await count('SELECT count(*) AS n FROM edges WHERE tenant_id = $1 AND graph_id = $2'),
        entities: await count('SELECT count(*) AS n FROM entities WHERE tenant_id = $1 AND graph_id = $2'),
        chunks: await count('SELECT count(*) AS n FROM chunks WHERE tenant_id = $1 AND graph_id = $2'),
        documents: await count('SELECT count(*) AS n FROM documents WHERE tenant_id = $1 AND graph_id = $2'),
      };
    };
    const totals = await client.query<{ relname: string; n: string }>(
      `SELECT relname, greatest(reltuples, 0)::bigint AS n FROM pg_class
       WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace AND relname = ANY($1)`,
      [['documents', 'chunks', 'entities', 'edges']],
    );
    const tenants = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM tenants')).rows[0].n);
    const gb = file.gb;
    return {
      questions_file: questionsFile,
      seed: file.seed,
      edges: file.edges,
      tenants: file.tenants,
      questions: file.questions.length,
      large_tenant: await graphCounts(file.large_tenant.tenant_id, file.large_tenant.graph_id),
      ...(gb
        ? { gb: { user_id: gb.user_id, dataset: gb.dataset, questions: gb.questions.length, ...(await graphCounts(file.large_tenant.tenant_id, gb.graph_id)) } }
        : {}),
      store_rows: { tenants, ...Object.fromEntries(totals.rows.map((r) => [r.relname, Number(r.n)])) },
    };
  } finally {
    await client.end();
  }
}

export async function describeRun(databaseUrl: string, file: QuestionsFile, questionsFile: string): Promise<{ machine: MachineInfo; dataset: DatasetInfo }> {
  return { machine: await describeMachine(databaseUrl), dataset: await describeDataset(databaseUrl, file, questionsFile) };
}

/** What every results file says about its run; a scenario adds its outcome (`T`). */
export interface BenchHeader {
  scenario: string;
  created_at: string;
  /** The seeded dataset the scenario ran on (absent when it needs none, e.g. limits). */
  dataset?: DatasetInfo;
  machine: MachineInfo & { load_average_after: number[] };
  settings: Record<string, unknown>;
  /** The file name's size part when there is no dataset (default: the dataset's edges). */
  label?: string;
}

export type BenchReport<T = QueryBenchOutcome> = BenchHeader & T;

/** Writes `<dir>/<scenario>-<edges or label>-<timestamp>.json` (through a .tmp file, renamed when whole). */
export function writeReport(dir: string, report: BenchHeader): string {
  mkdirSync(dir, { recursive: true });
  const stamp = report.created_at.replace(/[:.]/g, '-');
  const path = join(dir, `${report.scenario}-${report.label ?? report.dataset?.edges ?? 'none'}-${stamp}.json`);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
  return path;
}

/** The lines printed after the cells: answer checks, Loci/floor ratios, API memory. */
export function summaryLines(outcome: QueryBenchOutcome): string[] {
  const lines: string[] = [];
  for (const c of outcome.checks) {
    lines.push(`check ${(c.build ? `${c.scenario}@${c.build}` : c.scenario).padEnd(13)} ${c.mode.padEnd(6)} ${c.ok}/${c.requests} ok, answer found in ${Math.round(c.answer_found * 100)}%, ~${c.mean_bytes} bytes`);
  }
  for (const r of outcome.ratios) {
    lines.push(`Loci/floor ${r.mode.padEnd(6)} c=${String(r.concurrency).padEnd(3)} p50 ×${r.p50_ratio}  p99 ×${r.p99_ratio}  throughput ×${r.throughput_ratio}`);
  }
  for (const r of outcome.against_baseline ?? []) {
    lines.push(
      `this/baseline ${r.mode.padEnd(6)} c=${String(r.concurrency).padEnd(3)} p50 ×${r.p50_ratio}  p99 ×${r.p99_ratio}  throughput ×${r.throughput_ratio}` +
        (r.cpu_ratio === undefined ? '' : `  CPU a question ×${r.cpu_ratio}`),
    );
  }
  if (outcome.api_rss) {
    const m = outcome.api_rss;
    lines.push(`API RSS: ${m.baseline_mb} MB before the load, peak ${m.peak_mb} MB, mean ${m.mean_mb} MB (${m.samples} samples; target < ${m.limit_mb} MB: ${m.within_limit ? 'met' : 'NOT met'})`);
  }
  return lines;
}
