import { Inject, Injectable } from '@nestjs/common';
import type { SQL } from 'drizzle-orm';
import { Database, DATABASE, ReadRouter } from '@loci/db';
import {
  ChunkHit,
  chunkSearchSql,
  EdgeHit,
  edgeSearchSql,
  edgesAroundSql,
  entitiesByIdsSql,
  EntityHit,
  entitySearchSql,
  graphHasContentSql,
  Scope,
  SupportingChunk,
  supportingChunksSql,
} from './retrieval.queries';
import {
  chunkLexicalSearchSql,
  DEFAULT_BM25_POSTINGS_PER_TERM,
  edgeLexicalSearchSql, entitiesNamedSql, passageSearchSql, seedEntitiesSql } from './lexical.queries';
import { Bm25StatisticsMemo } from './bm25-statistics.memo';
import { historyAroundSql } from './gb/gb-query.queries';
import { chunksByIdsSql, WalkNeighbourhoodInput, walkNeighbourhoodSql } from './graph-walk.queries';
import type { Mention } from './graph-walk';

/** What the walk reads around its seeds (walkNeighbourhoodSql). */
export interface WalkNeighbourhood {
  /** Entities named by the seed passages: id → normalised name. */
  linkedEntities: Map<number, string>;
  /** Chunks of documents named by the seed passages. */
  linkedDocuments: Array<{ documentId: number; nameKey: string; chunkId: number }>;
  /** Entity–chunk mentions within two hops of the seeds and the linked entities. */
  mentions: Mention[];
}

/**
 * Runs the statements of `retrieval.queries.ts` and maps their rows; one statement a method, one
 * round trip each. The vector searches need `hnsw.iterative_scan`, which every session the
 * Database opens already has (SESSION_SETTINGS), so they run without a transaction of their own.
 */
@Injectable()
export class RetrievalRepository {
  /** BM25's N, avgdl and document frequencies of large graphs, remembered between questions. */
  private readonly bm25 = new Bm25StatisticsMemo();

  private readonly bm25PostingsPerTerm: number;

  /** `bm25PostingsPerTerm`: how many of a question word's postings BM25 reads (chunkLexicalSearchSql). */
  /** Where its statements run: a streaming replica when one is up (ReadRouter), else the primary. */
  private readonly reads: ReadRouter;

  /**
   * `bm25PostingsPerTerm`: how many of a question word's postings BM25 reads (chunkLexicalSearchSql).
   * `reads`: the process's router; without one (tools, tests), every read is the primary's.
   */
  constructor(@Inject(DATABASE) database: Database, options: { bm25PostingsPerTerm?: number; reads?: ReadRouter } = {}) {
    this.bm25PostingsPerTerm = options.bm25PostingsPerTerm ?? DEFAULT_BM25_POSTINGS_PER_TERM;
    this.reads = options.reads ?? new ReadRouter(database);
  }

  /** Entities nearest to `vector` by their name + description vector. */
  /** The descriptions of the facts about `entityIds` superseded or ended by the scope's instant (now without one), newest first, at most `limit`. */
  async endedFactDescriptions(scope: Scope, entityIds: number[], limit: number): Promise<Array<string | null>> {
    if (entityIds.length === 0 || limit <= 0) return [];
    const rows = await this.reads.rows<{ description: string | null }>(historyAroundSql(scope, entityIds, limit), scope);
    return rows.map((row) => row.description);
  }

  async searchEntities(scope: Scope, vector: number[], k: number): Promise<EntityHit[]> {
    return this.rows(scope, entitySearchSql(scope, vector, k), toEntityHit);
  }

  /** Live edges nearest to `vector`. */
  async searchEdges(scope: Scope, vector: number[], k: number): Promise<EdgeHit[]> {
    return this.rows(scope, edgeSearchSql(scope, vector, k), toEdgeHit);
  }

  /** Chunks nearest to `vector` by text or summary vector. */
  async searchChunks(scope: Scope, vector: number[], k: number): Promise<ChunkHit[]> {
    return this.rows(scope, chunkSearchSql(scope, vector, k), toChunkHit);
  }

  /** Chunks best matching `text` by BM25 (lexicalScore set, cosine score 0). */
  async searchChunksLexically(scope: Scope, text: string, k: number): Promise<ChunkHit[]> {
    const { corpus, known } = this.bm25.inputs(scope, text);
    const statement = chunkLexicalSearchSql(scope, text, k, corpus, this.bm25PostingsPerTerm, known);
    return this.lexicalHits(scope, await this.reads.preparedRows<Raw>('bm25', statement, scope));
  }

  /**
   * searchChunksLexically and documentsNamed in one statement (passageSearchSql); only BM25 when
   * there are no names.
   */
  async searchPassages(scope: Scope, text: string, k: number, names: string[]): Promise<{ lexical: ChunkHit[]; named: ChunkHit[] }> {
    if (names.length === 0) return { lexical: await this.searchChunksLexically(scope, text, k), named: [] };
    const { corpus, known } = this.bm25.inputs(scope, text);
    const rows = await this.reads.preparedRows<Raw>('passages', passageSearchSql(scope, text, k, names, corpus, this.bm25PostingsPerTerm, known), scope);
    return {
      lexical: this.lexicalHits(scope, rows.filter((r) => num(r.part) === 0)),
      named: rows.filter((r) => num(r.part) === 1).map(toChunkHit),
    };
  }

  private lexicalHits(scope: Scope, rows: Raw[]): ChunkHit[] {
    if (rows.length > 0) this.bm25.learn(scope, rows[0]);
    return rows.map((r) => ({ ...chunkBase(r), score: 0, lexicalScore: num(r.score) }));
  }

  /**
   * entitiesNamed and searchEntities in one statement (seedEntitiesSql) when both have an
   * input; otherwise the one that has, or none.
   */
  async seedEntities(scope: Scope, names: string[], vector: number[] | undefined, k: number): Promise<{ named: EntityHit[]; nearest: EntityHit[] }> {
    if (!vector) return { named: await this.entitiesNamed(scope, names), nearest: [] };
    if (names.length === 0) return { named: [], nearest: await this.searchEntities(scope, vector, k) };
    const rows = await this.reads.rows<Raw>(seedEntitiesSql(scope, names, vector, k), scope);
    return {
      named: rows.filter((r) => num(r.part) === 0).map(toEntityHit),
      nearest: rows.filter((r) => num(r.part) === 1).map(toEntityHit),
    };
  }

  /** Live facts stated in `chunkIds`, best matching `text` by BM25 (score = BM25). */
  async searchEdgesLexically(scope: Scope, text: string, chunkIds: number[], k: number): Promise<EdgeHit[]> {
    if (chunkIds.length === 0) return [];
    const { corpus, known } = this.bm25.inputs(scope, text);
    const statement = edgeLexicalSearchSql(scope, text, chunkIds, k, corpus, known);
    const rows = await this.reads.preparedRows<Raw>('fact_words', statement, scope);
    if (rows.length > 0) this.bm25.learn(scope, rows[0]);
    return rows.map(toEdgeHit);
  }

  /** Visible entities whose normalised name is one of `names`. */
  async entitiesNamed(scope: Scope, names: string[]): Promise<EntityHit[]> {
    if (names.length === 0) return [];
    return this.preparedRows(scope, 'entities_named', entitiesNamedSql(scope, names), toEntityHit);
  }

  /** The linked entities and documents and the mentions around the walk's seeds, in one statement. */
  async walkNeighbourhood(scope: Scope, input: WalkNeighbourhoodInput): Promise<WalkNeighbourhood> {
    const found: WalkNeighbourhood = { linkedEntities: new Map(), linkedDocuments: [], mentions: [] };
    if (input.entityIds.length === 0 && input.chunkIds.length === 0 && input.names.length === 0) return found;
    for (const r of await this.reads.preparedRows<Raw>('walk', walkNeighbourhoodSql(scope, input), scope)) {
      if (r.kind === 'link') found.linkedEntities.set(num(r.entity_id), String(r.name));
      else if (r.kind === 'document') found.linkedDocuments.push({ documentId: num(r.entity_id), nameKey: String(r.name), chunkId: num(r.chunk_id) });
      else if (r.kind === 'mentions') {
        const [entityIds, chunkIds] = jsonValue<[number[], number[]]>(r.pairs);
        for (let i = 0; i < entityIds.length; i++) found.mentions.push({ entityId: entityIds[i], chunkId: chunkIds[i] });
      }
    }
    return found;
  }

  /** Chunks of processed documents by id, in the order given. */
  async chunksByIds(scope: Scope, ids: number[]): Promise<ChunkHit[]> {
    if (ids.length === 0) return [];
    return this.preparedRows(scope, 'chunks_by_ids', chunksByIdsSql(scope, ids), toChunkHit);
  }

  async edgesAround(scope: Scope, entityIds: number[], limit: number): Promise<EdgeHit[]> {
    if (entityIds.length === 0) return [];
    return this.preparedRows(scope, 'edges_around', edgesAroundSql(scope, entityIds, limit), toEdgeHit);
  }

  async entitiesByIds(scope: Scope, ids: number[]): Promise<EntityHit[]> {
    if (ids.length === 0) return [];
    return this.preparedRows(scope, 'entities_by_ids', entitiesByIdsSql(scope, ids), toEntityHit);
  }

  async supportingChunks(
    scope: Scope,
    input: { entityIds: number[]; edgeIds: number[]; lead: 'entities' | 'edges'; limit: number },
  ): Promise<SupportingChunk[]> {
    if (input.entityIds.length === 0 && input.edgeIds.length === 0) return [];
    return this.preparedRows(scope, 'supporting_chunks', supportingChunksSql(scope, input), toSupportingChunk);
  }

  async graphHasContent(scope: Scope): Promise<boolean> {
    const [row] = await this.reads.rows<{ has_content: boolean }>(graphHasContentSql(scope), scope);
    return row?.has_content === true;
  }

  private async rows<T>(scope: Scope, statement: SQL, map: (row: Raw) => T): Promise<T[]> {
    return (await this.reads.rows<Raw>(statement, scope)).map(map);
  }

  /**
   * rows() for a statement prepared by name (prepared-statements.ts in @loci/db): only exact ones,
   * whose rows do not depend on the plan; the vector searches stay unnamed.
   */
  private async preparedRows<T>(scope: Scope, label: string, statement: SQL, map: (row: Raw) => T): Promise<T[]> {
    return (await this.reads.preparedRows<Raw>(label, statement, scope)).map(map);
  }
}

// ---- row mapping ------------------------------------------------------------------------

type Raw = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
/** A json column: both drivers parse it; a text value (a driver told not to) is parsed here. */
const jsonValue = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const date = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v)));

const toEntityHit = (r: Raw): EntityHit => ({
  id: num(r.id),
  name: String(r.name),
  type: str(r.type),
  description: str(r.description),
  score: num(r.score),
});

const toEdgeHit = (r: Raw): EdgeHit => ({
  id: num(r.id),
  sourceId: num(r.source_id),
  targetId: num(r.target_id),
  source: String(r.source),
  target: String(r.target),
  relation: String(r.relation),
  description: str(r.description),
  keywords: str(r.keywords),
  weight: num(r.weight),
  validAt: date(r.valid_at),
  invalidAt: date(r.invalid_at),
  score: numOrNull(r.score),
});

const chunkBase = (r: Raw): Omit<ChunkHit, 'score'> => ({
  chunkId: num(r.chunk_id),
  documentId: num(r.document_id),
  documentName: String(r.document_name),
  documentDate: date(r.document_date),
  loadedAt: date(r.loaded_at) as Date,
  text: String(r.text),
  ...(r.token_count === null || r.token_count === undefined ? {} : { tokenCount: Number(r.token_count) }),
});

const toChunkHit = (r: Raw): ChunkHit => ({ ...chunkBase(r), score: num(r.score) });

const toSupportingChunk = (r: Raw): SupportingChunk => ({
  ...chunkBase(r),
  entityPosition: numOrNull(r.entity_position),
  edgePosition: numOrNull(r.edge_position),
});

