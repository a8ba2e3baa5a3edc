import { Inject, Injectable } from '@nestjs/common';
import type { SQL } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '@loci/db';
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
import { CorpusStatsMemo } from './corpus-stats.memo';
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
  /** BM25's N and avgdl of large graphs, remembered between questions. */
  private readonly corpus = new CorpusStatsMemo();

  private readonly bm25PostingsPerTerm: number;

  /** `bm25PostingsPerTerm`: how many of a question word's postings BM25 reads (chunkLexicalSearchSql). */
  constructor(@Inject(DATABASE) private readonly database: Database, options: { bm25PostingsPerTerm?: number } = {}) {
    this.bm25PostingsPerTerm = options.bm25PostingsPerTerm ?? DEFAULT_BM25_POSTINGS_PER_TERM;
  }

  /** Entities nearest to `vector` by their name + description vector. */
  /** The descriptions of the facts about `entityIds` superseded or ended by the scope's instant (now without one), newest first, at most `limit`. */
  async endedFactDescriptions(scope: Scope, entityIds: number[], limit: number): Promise<Array<string | null>> {
    if (entityIds.length === 0 || limit <= 0) return [];
    const rows = await queryRows<{ description: string | null }>(this.database.db, historyAroundSql(scope, entityIds, limit));
    return rows.map((row) => row.description);
  }

  async searchEntities(scope: Scope, vector: number[], k: number): Promise<EntityHit[]> {
    return this.rows(entitySearchSql(scope, vector, k), toEntityHit);
  }

  /** Live edges nearest to `vector`. */
  async searchEdges(scope: Scope, vector: number[], k: number): Promise<EdgeHit[]> {
    return this.rows(edgeSearchSql(scope, vector, k), toEdgeHit);
  }

  /** Chunks nearest to `vector` by text or summary vector. */
  async searchChunks(scope: Scope, vector: number[], k: number): Promise<ChunkHit[]> {
    return this.rows(chunkSearchSql(scope, vector, k), toChunkHit);
  }

  /** Chunks best matching `text` by BM25 (lexicalScore set, cosine score 0). */
  async searchChunksLexically(scope: Scope, text: string, k: number): Promise<ChunkHit[]> {
    return this.lexicalHits(scope, await queryRows<Raw>(this.database.db, chunkLexicalSearchSql(scope, text, k, this.corpus.get(scope), this.bm25PostingsPerTerm)));
  }

  /**
   * searchChunksLexically and documentsNamed in one statement (passageSearchSql); only BM25 when
   * there are no names.
   */
  async searchPassages(scope: Scope, text: string, k: number, names: string[]): Promise<{ lexical: ChunkHit[]; named: ChunkHit[] }> {
    if (names.length === 0) return { lexical: await this.searchChunksLexically(scope, text, k), named: [] };
    const rows = await queryRows<Raw>(this.database.db, passageSearchSql(scope, text, k, names, this.corpus.get(scope), this.bm25PostingsPerTerm));
    return {
      lexical: this.lexicalHits(scope, rows.filter((r) => num(r.part) === 0)),
      named: rows.filter((r) => num(r.part) === 1).map(toChunkHit),
    };
  }

  private lexicalHits(scope: Scope, rows: Raw[]): ChunkHit[] {
    if (rows.length > 0) this.corpus.remember(scope, { chunks: num(rows[0].corpus_chunks), meanLength: num(rows[0].corpus_mean_length) });
    return rows.map((r) => ({ ...chunkBase(r), score: 0, lexicalScore: num(r.score) }));
  }

  /**
   * entitiesNamed and searchEntities in one statement (seedEntitiesSql) when both have an
   * input; otherwise the one that has, or none.
   */
  async seedEntities(scope: Scope, names: string[], vector: number[] | undefined, k: number): Promise<{ named: EntityHit[]; nearest: EntityHit[] }> {
    if (!vector) return { named: await this.entitiesNamed(scope, names), nearest: [] };
    if (names.length === 0) return { named: [], nearest: await this.searchEntities(scope, vector, k) };
    const rows = await queryRows<Raw>(this.database.db, seedEntitiesSql(scope, names, vector, k));
    return {
      named: rows.filter((r) => num(r.part) === 0).map(toEntityHit),
      nearest: rows.filter((r) => num(r.part) === 1).map(toEntityHit),
    };
  }

  /** Live facts stated in `chunkIds`, best matching `text` by BM25 (score = BM25). */
  async searchEdgesLexically(scope: Scope, text: string, chunkIds: number[], k: number): Promise<EdgeHit[]> {
    if (chunkIds.length === 0) return [];
    return this.rows(edgeLexicalSearchSql(scope, text, chunkIds, k, this.corpus.get(scope)), toEdgeHit);
  }

  /** Visible entities whose normalised name is one of `names`. */
  async entitiesNamed(scope: Scope, names: string[]): Promise<EntityHit[]> {
    if (names.length === 0) return [];
    return this.rows(entitiesNamedSql(scope, names), toEntityHit);
  }

  /** The linked entities and documents and the mentions around the walk's seeds, in one statement. */
  async walkNeighbourhood(scope: Scope, input: WalkNeighbourhoodInput): Promise<WalkNeighbourhood> {
    const found: WalkNeighbourhood = { linkedEntities: new Map(), linkedDocuments: [], mentions: [] };
    if (input.entityIds.length === 0 && input.chunkIds.length === 0 && input.names.length === 0) return found;
    for (const r of await queryRows<Raw>(this.database.db, walkNeighbourhoodSql(scope, input))) {
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
    return this.rows(chunksByIdsSql(scope, ids), toChunkHit);
  }

  async edgesAround(scope: Scope, entityIds: number[], limit: number): Promise<EdgeHit[]> {
    if (entityIds.length === 0) return [];
    return this.rows(edgesAroundSql(scope, entityIds, limit), toEdgeHit);
  }

  async entitiesByIds(scope: Scope, ids: number[]): Promise<EntityHit[]> {
    if (ids.length === 0) return [];
    return this.rows(entitiesByIdsSql(scope, ids), toEntityHit);
  }

  async supportingChunks(
    scope: Scope,
    input: { entityIds: number[]; edgeIds: number[]; lead: 'entities' | 'edges'; limit: number },
  ): Promise<SupportingChunk[]> {
    if (input.entityIds.length === 0 && input.edgeIds.length === 0) return [];
    return this.rows(supportingChunksSql(scope, input), toSupportingChunk);
  }

  async graphHasContent(scope: Scope): Promise<boolean> {
    const [row] = await queryRows<{ has_content: boolean }>(this.database.db, graphHasContentSql(scope));
    return row?.has_content === true;
  }

  private async rows<T>(statement: SQL, map: (row: Raw) => T): Promise<T[]> {
    return (await queryRows<Raw>(this.database.db, statement)).map(map);
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

