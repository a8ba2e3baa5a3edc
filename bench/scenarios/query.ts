import { Pool } from 'pg';
import { withSessionSettings } from '@loci/db';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import type { QuestionsFile } from '../questions';
import { cpuMs, RssSampler, RssSummary } from './api-process';
import { DatabaseCpu } from './database-cpu';
import { checkContext, HttpTarget, runContextCell } from './query-context';
import { checkFloor, FloorClient, prepareQuestions, runFloorCell } from './query-floor';
import { CellResult, CheckResult, QueryScenario } from './types';
import { graphTier } from './graph-tier';

/** The issue's memory target for the API process under the query-context load. */
export const API_RSS_LIMIT_MB = 300;

export interface QueryBenchOptions {
  scenarios: QueryScenario[];
  file: QuestionsFile;
  databaseUrl: string;
  /** Pool size of the floor; the API gets the same (LOCI_DB_POOL_MAX). */
  poolMax: number;
  modes: RetrievalMode[];
  concurrencies: number[];
  durationS: number;
  /** Questions asked one by one per mode and scenario before the load (checks and warm-up). */
  checkCount: number;
  /** Required for query-context: where the API listens, and its pid for RSS (null: not sampled). */
  target?: HttpTarget & { pid: number | null };
  /**
   * Another build's API on the same database (--api-main): each query-context cell runs on both,
   * back to back, first one then the other in turn, so the pair shares the machine's load.
   */
  baseline?: HttpTarget & { pid: number | null };
  log?: (line: string) => void;
}

export interface Ratio {
  mode: RetrievalMode;
  concurrency: number;
  /** Loci over floor, same mode and concurrency, measured in the same run. */
  p50_ratio: number;
  p99_ratio: number;
  throughput_ratio: number;
}

export interface QueryBenchOutcome {
  checks: CheckResult[];
  cells: CellResult[];
  ratios: Ratio[];
  api_rss?: RssSummary & { limit_mb: number; within_limit: boolean };
  /** This build over the baseline's, same mode and concurrency, measured in the same run. */
  against_baseline?: BaselineRatio[];
}

export interface BaselineRatio {
  mode: RetrievalMode;
  concurrency: number;
  p50_ratio: number;
  p99_ratio: number;
  throughput_ratio: number;
  /** API + database CPU a question, this build over the baseline. */
  cpu_ratio?: number;
}

/**
 * Runs the query scenarios cell by cell (concurrency × mode), floor and Loci back to back in
 * each cell when both are asked for, so that a pair sees the same machine load and the same
 * question sequence.
 */
export async function runQueryBench(options: QueryBenchOptions): Promise<QueryBenchOutcome> {
  const log = options.log ?? (() => undefined);
  const wantsFloor = options.scenarios.includes('query-floor');
  const wantsContext = options.scenarios.includes('query-context');
  if (wantsContext && !options.target) throw new Error('query-context needs an API to talk to');
  const questions = options.file.questions;
  const graph = { tenantId: options.file.large_tenant.tenant_id, graphId: options.file.large_tenant.graph_id };

  const pool = wantsFloor ? new Pool({ connectionString: withSessionSettings(options.databaseUrl), max: options.poolMax }) : undefined;
  pool?.on('error', () => undefined);
  const scope = pool ? { ...graph, vectorTier: await graphTier(pool, graph.tenantId, graph.graphId) } : graph;
  const floor = pool ? new FloorClient(pool, scope) : undefined;
  const prepared = wantsFloor ? prepareQuestions(questions) : [];
  const rss = wantsContext && options.target?.pid ? new RssSampler(options.target.pid).start() : undefined;
  const databaseCpu = wantsContext ? new DatabaseCpu(options.databaseUrl) : undefined;
  const checks: CheckResult[] = [];
  const cells: CellResult[] = [];
  try {
    for (const mode of options.modes) {
      if (floor) checks.push(await checkFloor(floor, prepared, mode, options.checkCount));
      if (wantsContext) checks.push(await checkContext(options.target!, questions, mode, options.checkCount));
      if (options.baseline) checks.push({ ...(await checkContext(options.baseline, questions, mode, options.checkCount)), build: 'baseline' });
    }
    for (const concurrency of options.concurrencies) {
      for (const mode of options.modes) {
        if (floor) {
          const cell = await runFloorCell(floor, prepared, mode, concurrency, options.durationS);
          cells.push(cell);
          log(cellLine(cell));
        }
        if (wantsContext) {
          const builds: ContextBuild[] = [{ target: options.target! }];
          if (options.baseline) builds.push({ target: options.baseline, label: 'baseline' });
          // Which build goes first alternates from cell to cell: neither always meets a warmer cache.
          if (cells.length % 2 === 1) builds.reverse();
          for (const build of builds) {
            const cell = await measureContextCell(build, questions, mode, concurrency, options.durationS, databaseCpu);
            cells.push(cell);
            log(cellLine(cell));
          }
        }
      }
    }
  } finally {
    await pool?.end();
    await databaseCpu?.close();
  }
  const summary = rss?.stop();
  const againstBaseline = options.baseline ? baselineRatiosOf(cells) : undefined;
  return {
    checks,
    cells,
    ratios: ratiosOf(cells),
    ...(againstBaseline ? { against_baseline: againstBaseline } : {}),
    ...(summary ? { api_rss: { ...summary, limit_mb: API_RSS_LIMIT_MB, within_limit: summary.peak_mb < API_RSS_LIMIT_MB } } : {}),
  };
}

interface ContextBuild {
  target: HttpTarget & { pid: number | null };
  label?: 'baseline';
}

async function measureContextCell(
  build: ContextBuild,
  questions: QuestionsFile['questions'],
  mode: RetrievalMode,
  concurrency: number,
  durationS: number,
  databaseCpu: DatabaseCpu | undefined,
): Promise<CellResult> {
  const pid = build.target.pid;
  const cpuBefore = pid ? cpuMs(pid) : undefined;
  const databaseBefore = await databaseCpu?.sample();
  const cell = await runContextCell(build.target, questions, mode, concurrency, durationS);
  const cpuAfter = pid ? cpuMs(pid) : undefined;
  const databaseMs = databaseBefore ? await databaseCpu!.since(databaseBefore) : undefined;
  if (build.label) cell.build = build.label;
  if (cell.requests > 0) {
    // The API's own CPU per answered question: what Loci adds on top of the SQL's.
    if (cpuBefore !== undefined && cpuAfter !== undefined) cell.api_cpu_ms_per_request = round2((cpuAfter - cpuBefore) / cell.requests);
    if (databaseMs !== undefined) cell.db_cpu_ms_per_request = round2(databaseMs / cell.requests);
  }
  return cell;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export function baselineRatiosOf(cells: CellResult[]): BaselineRatio[] {
  const ratios: BaselineRatio[] = [];
  const cpu = (cell: CellResult) =>
    cell.api_cpu_ms_per_request === undefined || cell.db_cpu_ms_per_request === undefined ? undefined : cell.api_cpu_ms_per_request + cell.db_cpu_ms_per_request;
  for (const ours of cells.filter((c) => c.scenario === 'query-context' && !c.build)) {
    const theirs = cells.find((c) => c.scenario === 'query-context' && c.build === 'baseline' && c.mode === ours.mode && c.concurrency === ours.concurrency);
    if (!theirs) continue;
    const oursCpu = cpu(ours);
    const theirsCpu = cpu(theirs);
    ratios.push({
      mode: ours.mode,
      concurrency: ours.concurrency,
      p50_ratio: round2(ours.latency_ms.p50 / theirs.latency_ms.p50),
      p99_ratio: round2(ours.latency_ms.p99 / theirs.latency_ms.p99),
      throughput_ratio: round2(ours.throughput_rps / theirs.throughput_rps),
      ...(oursCpu !== undefined && theirsCpu ? { cpu_ratio: round2(oursCpu / theirsCpu) } : {}),
    });
  }
  return ratios;
}

export function ratiosOf(cells: CellResult[]): Ratio[] {
  const ratios: Ratio[] = [];
  for (const context of cells.filter((c) => c.scenario === 'query-context' && !c.build)) {
    const floor = cells.find((c) => c.scenario === 'query-floor' && c.mode === context.mode && c.concurrency === context.concurrency);
    if (!floor) continue;
    const r = (a: number, b: number) => Math.round((a / b) * 100) / 100;
    ratios.push({
      mode: context.mode,
      concurrency: context.concurrency,
      p50_ratio: r(context.latency_ms.p50, floor.latency_ms.p50),
      p99_ratio: r(context.latency_ms.p99, floor.latency_ms.p99),
      throughput_ratio: r(context.throughput_rps, floor.throughput_rps),
    });
  }
  return ratios;
}

export function cellLine(cell: CellResult): string {
  const l = cell.latency_ms;
  return (
    `${(cell.build ? `${cell.scenario}@${cell.build}` : cell.scenario).padEnd(13)} ${cell.mode.padEnd(6)} c=${String(cell.concurrency).padEnd(3)} ` +
    `${String(cell.throughput_rps).padStart(8)} req/s  p50 ${fmt(l.p50)}  p95 ${fmt(l.p95)}  p99 ${fmt(l.p99)} ms` +
    `  (${cell.requests} ok, ${cell.errors} errors, ${cell.duration_s} s)` +
    (cell.api_cpu_ms_per_request === undefined ? '' : `  API CPU ${cell.api_cpu_ms_per_request} ms/question`) +
    (cell.db_cpu_ms_per_request === undefined ? '' : `  database CPU ${cell.db_cpu_ms_per_request} ms/question`)
  );
}

const fmt = (ms: number) => ms.toFixed(2).padStart(8);
