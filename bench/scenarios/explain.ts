import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { Client } from 'pg';
import { withSessionSettings } from '@loci/db';
import type { Scope } from '../../libs/retrieval/src/retrieval.queries';
import type { QuestionsFile } from '../questions';
import { LatencySummary, summarize } from '../stats';
import {
  oneAfterAnother,
  PreparedQuestion,
  prepareQuestions,
  RETRIEVAL_STATEMENTS,
  RetrievalStatement,
  Row,
  runQuestionStatements,
} from './query-floor';
import { graphTier } from './graph-tier';

/**
 * "Look at EXPLAIN before you guess": every statement a `mix` question issues, as the floor
 * (query-floor.ts) builds and chains them, run under EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
 * on one connection with Loci's session settings. Timing alone does not say where the time
 * goes: at 375k edges most HNSW buffers are *reads* (pages not in shared_buffers), not hits,
 * and a plan that left the HNSW index for a sequential scan looks like "slow" and nothing more.
 */

/** The statements of a mix question, in the order the floor issues them (local, global, naive path). */
export const EXPLAIN_STATEMENTS = RETRIEVAL_STATEMENTS;
export type ExplainStatement = RetrievalStatement;

/** The vector searches: these should each be served by an HNSW index scan. */
const VECTOR_SEARCHES: readonly ExplainStatement[] = ['entity_search', 'edge_search', 'chunk_search'];

/** What one EXPLAIN ANALYZE of one statement says. */
export interface ExplainSample {
  executionMs: number;
  planningMs: number;
  sharedHit: number;
  sharedRead: number;
  /** HNSW indexes the plan scanned (empty: the search did not use one). */
  hnswIndexes: string[];
}

/** One statement over the explained questions. */
export interface ExplainStatementSummary {
  name: ExplainStatement;
  vector_search: boolean;
  /** How many questions issued it (expansions are skipped when a search finds nothing, as in the floor). */
  plans: number;
  execution_ms: LatencySummary;
  planning_ms_p50: number;
  shared_hit_blocks_p50: number;
  shared_read_blocks_p50: number;
  /** Every plan of this statement had an Index Scan on an HNSW index (false for the non-vector statements). */
  hnsw_index_scan: boolean;
  /** The HNSW indexes its plans scanned, over all questions. */
  hnsw_indexes: string[];
}

export interface ExplainOutcome {
  questions: number;
  statements: ExplainStatementSummary[];
  /** Sum over the statements of p50 execution + p50 planning: a mix question's database time, serialised. */
  total_p50_ms: number;
}

export interface ExplainBenchOptions {
  file: QuestionsFile;
  databaseUrl: string;
  /** The first `count` questions of the file are explained. */
  count: number;
}

export async function runExplainBench(options: ExplainBenchOptions): Promise<ExplainOutcome> {
  const scope = { tenantId: options.file.large_tenant.tenant_id, graphId: options.file.large_tenant.graph_id };
  const prepared = prepareQuestions(options.file.questions.slice(0, options.count));
  // One connection, started as the API's are (hnsw.iterative_scan), so the plans are the API's.
  const client = new Client({ connectionString: withSessionSettings(options.databaseUrl) });
  await client.connect();
  try {
    const tiered = { ...scope, vectorTier: await graphTier(client, scope.tenantId, scope.graphId) };
    const explainer = new Explainer(client, tiered, await hnswIndexNames(client));
    for (const q of prepared) await explainer.explainMix(q);
    return summarizeSamples(prepared.length, explainer.samples);
  } finally {
    await client.end();
  }
}

/** Names of the indexes created USING hnsw, to recognise them in a plan's `Index Name`. */
async function hnswIndexNames(client: Client): Promise<Set<string>> {
  const { rows } = await client.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexdef ILIKE '%USING hnsw%'`,
  );
  return new Set(rows.map((r) => r.indexname));
}

/** Issues a mix question's statements through the floor's chain, each explained and then run for its rows. */
class Explainer {
  private readonly dialect = new PgDialect();
  readonly samples = new Map<ExplainStatement, ExplainSample[]>();

  constructor(
    private readonly client: Client,
    private readonly scope: Scope,
    private readonly hnsw: ReadonlySet<string>,
  ) {}

  /** One after another on one connection (the floor runs the branches concurrently): each plan is measured alone. */
  async explainMix(q: PreparedQuestion): Promise<void> {
    await runQuestionStatements(this.scope, q, 'mix', (name, statement) => this.step(name, statement), oneAfterAnother);
  }

  /**
   * EXPLAIN first, so its buffers are those a question meets (not warmed by a run of the same
   * statement); then the plain statement, for the rows the next statement depends on.
   */
  private async step(name: ExplainStatement, statement: SQL): Promise<Row[]> {
    const { sql, params } = this.dialect.sqlToQuery(statement);
    const explained = await this.client.query<{ 'QUERY PLAN': ExplainJson[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, params);
    const samples = this.samples.get(name) ?? [];
    samples.push(sampleOf(explained.rows[0]['QUERY PLAN'][0], this.hnsw));
    this.samples.set(name, samples);
    return (await this.client.query(sql, params)).rows;
  }
}

/** The parts of EXPLAIN's FORMAT JSON read here. */
interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}
interface ExplainJson {
  Plan: PlanNode;
  'Planning Time': number;
  'Execution Time': number;
}

/** The top plan node carries the buffer totals of the whole tree (its subplans and CTEs included). */
function sampleOf(explain: ExplainJson, hnsw: ReadonlySet<string>): ExplainSample {
  return {
    executionMs: explain['Execution Time'],
    planningMs: explain['Planning Time'],
    sharedHit: explain.Plan['Shared Hit Blocks'] ?? 0,
    sharedRead: explain.Plan['Shared Read Blocks'] ?? 0,
    hnswIndexes: [...new Set(hnswScans(explain.Plan, hnsw))].sort(),
  };
}

/** Index names of every Index Scan on an HNSW index in the tree under `node`. */
function hnswScans(node: PlanNode, hnsw: ReadonlySet<string>): string[] {
  const own = node['Node Type'] === 'Index Scan' && node['Index Name'] && hnsw.has(node['Index Name']) ? [node['Index Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => hnswScans(child, hnsw))];
}

function summarizeSamples(questions: number, samples: ReadonlyMap<ExplainStatement, ExplainSample[]>): ExplainOutcome {
  const statements = EXPLAIN_STATEMENTS.map((name) => summarizeStatement(name, samples.get(name) ?? []));
  const issued = statements.filter((s) => s.plans > 0);
  const total = issued.reduce((sum, s) => sum + s.execution_ms.p50 + s.planning_ms_p50, 0);
  return { questions, statements, total_p50_ms: round(total) };
}

function summarizeStatement(name: ExplainStatement, samples: ExplainSample[]): ExplainStatementSummary {
  const p50 = (pick: (s: ExplainSample) => number) => summarize(samples.map(pick)).p50;
  return {
    name,
    vector_search: VECTOR_SEARCHES.includes(name),
    plans: samples.length,
    execution_ms: summarize(samples.map((s) => s.executionMs)),
    planning_ms_p50: p50((s) => s.planningMs),
    shared_hit_blocks_p50: p50((s) => s.sharedHit),
    shared_read_blocks_p50: p50((s) => s.sharedRead),
    hnsw_index_scan: samples.length > 0 && samples.every((s) => s.hnswIndexes.length > 0),
    hnsw_indexes: [...new Set(samples.flatMap((s) => s.hnswIndexes))].sort(),
  };
}

/** One line a statement, then the total. */
export function explainLines(outcome: ExplainOutcome): string[] {
  const lines = outcome.statements.map((s) => {
    if (s.plans === 0) return `explain ${s.name.padEnd(27)} not issued (no search hits)`;
    const hnsw = s.vector_search ? `  hnsw ${s.hnsw_index_scan ? 'yes' : 'NO '}` : '          ';
    return (
      `explain ${s.name.padEnd(27)} exec p50 ${fmt(s.execution_ms.p50)}  p95 ${fmt(s.execution_ms.p95)}  plan p50 ${fmt(s.planning_ms_p50)} ms` +
      `  shared hit ${blocks(s.shared_hit_blocks_p50)}  read ${blocks(s.shared_read_blocks_p50)}${hnsw}  (${s.plans} plans)`
    );
  });
  return [...lines, `explain ${'total'.padEnd(27)} p50 exec + plan ${fmt(outcome.total_p50_ms)} ms over ${outcome.questions} questions`];
}

const round = (x: number) => Math.round(x * 100) / 100;
const fmt = (ms: number) => ms.toFixed(2).padStart(8);
const blocks = (n: number) => String(n).padStart(6);
