import { Database, ReadRouter } from '@loci/db';
import { Bm25StatisticsMemo } from '../bm25-statistics.memo';
import { chunkLexicalSearchSql, DEFAULT_BM25_POSTINGS_PER_TERM } from '../lexical.queries';
import { Scope } from '../retrieval.queries';
import {
  chunksByIdsSql,
  edgesAroundSql,
  entitiesByIdsSql,
  historyAroundSql,
  KeywordScoring,
  keywordSeedsSql,
  liveEdgesByIdsSql,
  recentEntitiesSql,
  VectorIndex,
  vectorSearchSql,
} from './gb-query.queries';

export interface GbEntity {
  id: number;
  name: string;
  type: string | null;
  description: string | null;
  updatedAt: Date;
  /** Keyword score (0 when not found by keywords). */
  score: number;
}

export interface GbEdge {
  id: number;
  sourceId: number;
  targetId: number;
  source: string;
  target: string;
  relation: string;
  description: string | null;
  artifactId: number | null;
  validAt: Date | null;
  invalidAt: Date | null;
  createdAt: Date;
  expiredAt: Date | null;
  /** Set only under include_history: what the fact was at the question's instant, if not live. */
  history?: 'ended' | 'superseded';
}

export interface GbChunk {
  id: number;
  documentId: number;
  index: number;
  text: string;
  summary: string | null;
}

export interface VectorMatch {
  id: number;
  score: number;
}

type Raw = Record<string, unknown>;
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

const toEntity = (r: Raw): GbEntity => ({
  id: Number(r.id),
  name: String(r.name),
  type: str(r.type),
  description: str(r.description),
  updatedAt: date(r.updated_at) as Date,
  score: Number(r.score ?? 0),
});

const toEdge = (r: Raw): GbEdge => ({
  id: Number(r.id),
  sourceId: Number(r.source_id),
  targetId: Number(r.target_id),
  source: String(r.source),
  target: String(r.target),
  relation: String(r.relation),
  description: str(r.description),
  artifactId: r.artifact_id === null || r.artifact_id === undefined ? null : Number(r.artifact_id),
  validAt: date(r.valid_at),
  invalidAt: date(r.invalid_at),
  createdAt: date(r.created_at) as Date,
  expiredAt: date(r.expired_at),
});

const toChunk = (r: Raw): GbChunk => ({
  id: Number(r.id),
  documentId: Number(r.document_id),
  index: Number(r.index),
  text: String(r.text),
  summary: str(r.summary),
});

/** Runs the statements of `gb-query.queries.ts`; one statement a method. */
export class GbQueryRepository {
  /** BM25's N, avgdl and document frequencies of large datasets, as /v1/query keeps them (record 0081). */
  private readonly bm25 = new Bm25StatisticsMemo();

  private readonly bm25PostingsPerTerm: number;

  /** `bm25PostingsPerTerm`: how many of a question word's postings BM25 reads (chunkLexicalSearchSql). */
  /** Where its statements run: a streaming replica when one is up (ReadRouter), else the primary. */
  private readonly reads: ReadRouter;

  constructor(database: Database, options: { bm25PostingsPerTerm?: number; reads?: ReadRouter } = {}) {
    this.bm25PostingsPerTerm = options.bm25PostingsPerTerm ?? DEFAULT_BM25_POSTINGS_PER_TERM;
    this.reads = options.reads ?? new ReadRouter(database);
  }

  async keywordSeeds(scope: Scope, scoring: KeywordScoring): Promise<GbEntity[]> {
    return (await this.reads.rows<Raw>(keywordSeedsSql(scope, scoring), scope)).map(toEntity);
  }

  async recentEntities(scope: Scope, limit: number): Promise<GbEntity[]> {
    return (await this.reads.rows<Raw>(recentEntitiesSql(scope, limit), scope)).map(toEntity);
  }

  async entitiesByIds(scope: Scope, ids: number[]): Promise<GbEntity[]> {
    if (ids.length === 0) return [];
    return (await this.reads.rows<Raw>(entitiesByIdsSql(scope, ids), scope)).map(toEntity);
  }

  async edgesAround(scope: Scope, seedIds: number[], limit: number): Promise<GbEdge[]> {
    if (seedIds.length === 0 || limit <= 0) return [];
    return (await this.reads.rows<Raw>(edgesAroundSql(scope, seedIds, limit), scope)).map(toEdge);
  }

  /** The edges touching the seeds that were history at the scope's instant (now without one). */
  async historyAround(scope: Scope, seedIds: number[], limit: number): Promise<GbEdge[]> {
    if (seedIds.length === 0 || limit <= 0) return [];
    return (await this.reads.rows<Raw>(historyAroundSql(scope, seedIds, limit), scope)).map(toEdge);
  }

  async liveEdgesByIds(scope: Scope, ids: number[]): Promise<GbEdge[]> {
    if (ids.length === 0) return [];
    return (await this.reads.rows<Raw>(liveEdgesByIdsSql(scope, ids), scope)).map(toEdge);
  }

  async chunksByIds(scope: Scope, ids: number[]): Promise<GbChunk[]> {
    if (ids.length === 0) return [];
    return (await this.reads.rows<Raw>(chunksByIdsSql(scope, ids), scope)).map(toChunk);
  }

  /**
   * The dataset's chunks that best match `question` by BM25, best first, at most `k`: the
   * statement /v1/query ranks passages with (chunk_terms postings of the same graph; a gb text's
   * chunks are indexed like a document's), so both surfaces rank a text alike.
   */
  async lexicalChunks(scope: Scope, question: string, k: number): Promise<VectorMatch[]> {
    if (k <= 0 || question.trim() === '') return [];
    // Prepared by name (record 0080) and given the frequencies remembered (record 0081), as /v1/query's BM25 is.
    const { corpus, known } = this.bm25.inputs(scope, question);
    const statement = chunkLexicalSearchSql(scope, question, k, corpus, this.bm25PostingsPerTerm, known);
    const rows = await this.reads.preparedRows<Raw>('gb_bm25', statement, scope);
    if (rows.length > 0) this.bm25.learn(scope, rows[0]);
    return rows.map((r) => ({ id: Number(r.chunk_id), score: Number(r.score) }));
  }

  async search(scope: Scope, index: VectorIndex, vector: number[], k: number, minSimilarity: number): Promise<VectorMatch[]> {
    if (k <= 0) return [];
    // One statement: every session Loci opens has hnsw.iterative_scan (SESSION_SETTINGS), so the
    // scan goes on until k rows pass the filters without a SET LOCAL transaction around it.
    return (await this.reads.rows<Raw>(vectorSearchSql(scope, index, vector, k, minSimilarity), scope)).map((r) => ({
      id: Number(r.id),
      score: Number(r.score),
    }));
  }
}
