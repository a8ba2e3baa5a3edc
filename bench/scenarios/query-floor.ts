import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Pool } from 'pg';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import {
  chunkSearchSql,
  edgeSearchSql,
  edgesAroundSql,
  entitiesByIdsSql,
  entitySearchSql,
  Scope,
  supportingChunksSql,
} from '../../libs/retrieval/src/retrieval.queries';
import { EDGES_PER_ENTITY_HIT } from '../../libs/retrieval/src/retrieval.service';
import { DEFAULT_TOP_K, RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import type { BenchQuestion } from '../questions';
import { summarize } from '../stats';
import { CellResult, CheckResult, QuestionCursor } from './types';

/**
 * The floor: the statements RetrievalService issues for one question, built by the same
 * builders (retrieval.queries.ts, compiled by drizzle's PgDialect to text + parameters) and
 * sent with plain `pg` on a pool as large as the API's, in the same order and with the same
 * dependencies (hits → expansion → chunks; the paths of a mode concurrently), on connections
 * that start with Loci's session settings (`withSessionSettings`: iterative HNSW scans). No HTTP, no Nest, no
 * drizzle session, no auth, no request log, no token budgets; the vectors are computed before
 * the clock starts (Loci computes them per request: the local embedder, ~0.1 ms a text).
 */

export type Row = Record<string, unknown>;

/** The vectors the API computes for a question (QueryService.vectors): question, ll and hl keywords joined by ", ". */
export interface PreparedQuestion {
  question: BenchQuestion;
  questionVector: number[];
  lowLevelVector: number[];
  highLevelVector: number[];
}

export function prepareQuestions(questions: readonly BenchQuestion[]): PreparedQuestion[] {
  const embedder = new LocalHashingEmbedder();
  return questions.map((question) => ({
    question,
    questionVector: embedder.embedText(question.query),
    lowLevelVector: embedder.embedText(question.ll_keywords.join(', ')),
    highLevelVector: embedder.embedText(question.hl_keywords.join(', ')),
  }));
}

/** The statements of one question, named; a `mix` question issues all of them, in this order. */
export const RETRIEVAL_STATEMENTS = [
  'entity_search',
  'edges_around',
  'supporting_chunks_entities',
  'edge_search',
  'entities_by_ids',
  'supporting_chunks_edges',
  'chunk_search',
] as const;
export type RetrievalStatement = (typeof RETRIEVAL_STATEMENTS)[number];

/** Sends one statement and returns its rows (plain, or explained first). */
export type RunStatement = (name: RetrievalStatement, statement: SQL) => Promise<Row[]>;

/** How independent branches of a question run: at once (the floor) or one after another (explain). */
export type Branches = <T>(works: Array<() => Promise<T>>) => Promise<T[]>;
export const concurrently: Branches = (works) => Promise.all(works.map((work) => work()));
export const oneAfterAnother: Branches = async (works) => {
  const results = [];
  for (const work of works) results.push(await work());
  return results;
};

/**
 * The statements RetrievalService issues for one question in `mode`, with its dependencies:
 * local path (entities → expansion → supporting chunks), global path (edges → endpoints and
 * supporting chunks), naive path (chunks); the paths are independent branches. Returns every
 * row. The floor and the explain scenario both run questions through this one chain.
 */
export async function runQuestionStatements(
  scope: Scope,
  q: PreparedQuestion,
  mode: RetrievalMode,
  run: RunStatement,
  branches: Branches,
): Promise<Row[]> {
  const topK = DEFAULT_TOP_K;
  const localPath = async (): Promise<Row[]> => {
    const entities = await run('entity_search', entitySearchSql(scope, q.lowLevelVector, topK));
    if (entities.length === 0) return [];
    const entityIds = entities.map((e) => Number(e.id));
    const edges = await run('edges_around', edgesAroundSql(scope, entityIds, topK * EDGES_PER_ENTITY_HIT));
    const edgeIds = edges.map((e) => Number(e.id));
    const chunks = await run('supporting_chunks_entities', supportingChunksSql(scope, { entityIds, edgeIds, lead: 'entities', limit: topK }));
    return [...entities, ...edges, ...chunks];
  };
  const globalPath = async (): Promise<Row[]> => {
    const edges = await run('edge_search', edgeSearchSql(scope, q.highLevelVector, topK));
    if (edges.length === 0) return [];
    const endpointIds = [...new Set(edges.flatMap((e) => [Number(e.source_id), Number(e.target_id)]))];
    const edgeIds = edges.map((e) => Number(e.id));
    const [entities, chunks] = await branches([
      () => run('entities_by_ids', entitiesByIdsSql(scope, endpointIds)),
      () => run('supporting_chunks_edges', supportingChunksSql(scope, { entityIds: endpointIds, edgeIds, lead: 'edges', limit: topK })),
    ]);
    return [...edges, ...entities, ...chunks];
  };
  const usesLocal = mode === 'local' || mode === 'hybrid' || mode === 'mix';
  const usesGlobal = mode === 'global' || mode === 'hybrid' || mode === 'mix';
  const usesNaive = mode === 'naive' || mode === 'mix';
  const parts = await branches<Row[]>([
    async () => (usesLocal ? localPath() : []),
    async () => (usesGlobal ? globalPath() : []),
    async () => (usesNaive ? run('chunk_search', chunkSearchSql(scope, q.questionVector, topK)) : []),
  ]);
  return parts.flat();
}

/**
 * The floor's client: a question's statements on a pool as large as the API's, whose
 * connections start with Loci's session settings (`withSessionSettings`), so a vector search
 * is one statement, as in Loci.
 */
export class FloorClient {
  private readonly dialect = new PgDialect();

  constructor(
    private readonly pool: Pool,
    private readonly scope: Scope,
  ) {}

  /** Runs one question in `mode`; returns every row the statements returned. */
  ask(q: PreparedQuestion, mode: RetrievalMode): Promise<Row[]> {
    return runQuestionStatements(this.scope, q, mode, (_name, statement) => this.run(statement), concurrently);
  }

  private async run(statement: SQL): Promise<Row[]> {
    const { sql, params } = this.dialect.sqlToQuery(statement);
    return (await this.pool.query(sql, params)).rows;
  }
}

/** Sequential pass: every mode answers, and the answer edge's target shows up in the rows. */
export async function checkFloor(client: FloorClient, questions: PreparedQuestion[], mode: RetrievalMode, count: number): Promise<CheckResult> {
  let ok = 0;
  let found = 0;
  let bytes = 0;
  const asked = questions.slice(0, Math.min(count, questions.length));
  for (const q of asked) {
    const rows = await client.ask(q, mode);
    const text = JSON.stringify(rows);
    ok++;
    bytes += Buffer.byteLength(text);
    if (text.includes(q.question.answer.target)) found++;
  }
  return { scenario: 'query-floor', mode, requests: asked.length, ok, answer_found: round(found / Math.max(1, asked.length)), mean_bytes: Math.round(bytes / Math.max(1, ok)) };
}

/** Closed loop: `concurrency` workers ask back to back until `durationS` has passed. */
export async function runFloorCell(
  client: FloorClient,
  questions: PreparedQuestion[],
  mode: RetrievalMode,
  concurrency: number,
  durationS: number,
): Promise<CellResult> {
  const cursor = new QuestionCursor(questions.map((q) => q.question));
  const byQuestion = new Map(questions.map((q) => [q.question, q]));
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + durationS * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const q = byQuestion.get(cursor.next())!;
      const t0 = performance.now();
      try {
        await client.ask(q, mode);
        latencies.push(performance.now() - t0);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  return {
    scenario: 'query-floor',
    mode,
    concurrency,
    duration_s: round(elapsedS),
    requests: latencies.length,
    errors,
    throughput_rps: round(latencies.length / elapsedS),
    latency_ms: summarize(latencies),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;
