import { SQL, sql } from 'drizzle-orm';
import { Db, nearestBy } from '@loci/db';
import { bigintArray, chunkVisible, edgeVisible, entityDescription, entityVisible, liveEdge, PROCESSED, recordedBy, sameEmbedder, Scope } from './visibility.sql';
import type { RetrievedRelation } from './retrieval.types';

export type { Scope } from './visibility.sql';

/**
 * The SQL of retrieval. Every statement filters on `tenant_id = $tenant AND graph_id = $graph`
 * and reads only rows a `processed` document supports:
 * - chunks: their document is processed;
 * - entities / edges: at least one entity_documents / edge_documents row names a processed
 *   document (a failed or half-ingested document's rows stay invisible until it is processed);
 * - edges: live only (`expired_at IS NULL`); ended facts (invalid_at set) are live history.
 * - at a valid instant (Scope.asOf): the facts true then by all Loci knows now (liveEdge); at a
 *   record instant (Scope.knownAt): the facts live in the record then, and only the entities
 *   and chunks recorded by then (recordedBy).
 *
 * Vector searches are one statement each: `ORDER BY col <=> $vec LIMIT k` inside a
 * MATERIALIZED CTE, so the HNSW index yields rows in distance order and the filters run on
 * them. With `hnsw.iterative_scan = relaxed_order` (a session setting of every connection the
 * Database opens, SESSION_SETTINGS in @loci/db) the index scan keeps going past `ef_search`
 * candidates until k rows pass the filters (up to `hnsw.max_scan_tuples`); relaxed order may be
 * slightly out of order, hence the outer sort.
 */

export interface EntityHit {
  id: number;
  name: string;
  type: string | null;
  description: string | null;
  score: number;
}

/** A relation as the SQL finds it, before budgets: the retrieved shape plus its score. */
export interface EdgeHit extends RetrievedRelation {
  /** Cosine similarity for vector hits; null for edges found by expansion. */
  score: number | null;
}

export interface ChunkHit {
  chunkId: number;
  documentId: number;
  documentName: string;
  documentDate: Date | null;
  loadedAt: Date;
  text: string;
  tokenCount?: number;
  score: number;
  lexicalScore?: number;
}

/** A KG chunk with the best (lowest) position among the entities and edges it supports. */
export interface SupportingChunk extends Omit<ChunkHit, 'score'> {
  entityPosition: number | null;
  edgePosition: number | null;
}


/**
 * Runs `work` in a transaction whose HNSW scans continue until enough rows pass the filters.
 * Loci's own sessions already have the setting (SESSION_SETTINGS), so retrieval does not use
 * this; it is for a handle whose sessions may not (a pool someone else opened, EXPLAIN in tests).
 */
export async function searchTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    return work(tx);
  });
}

// ---- vector searches ---------------------------------------------------------------------

export function entitySearchSql(scope: Scope, vector: number[], k: number): SQL {
  const by = nearestBy('e', 'embedding', vector, scope.vectorTier);
  return sql`WITH nearest AS MATERIALIZED (
      SELECT e.id, e.name, e.type, ${entityDescription(scope, 'e')}, ${by.distance} AS distance
      FROM entities e
      WHERE e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND ${by.column} IS NOT NULL${sameEmbedder(scope, 'e')}
        AND ${entityVisible(scope, 'e')}
      ORDER BY distance
      LIMIT ${k})
    SELECT id, name, type, description, 1 - distance AS score, distance FROM nearest ORDER BY distance, id`;
}

export function edgeSearchSql(scope: Scope, vector: number[], k: number): SQL {
  const by = nearestBy('x', 'embedding', vector, scope.vectorTier);
  return sql`WITH nearest AS MATERIALIZED (
      SELECT x.id, x.source_id, x.target_id, x.relation, x.description, x.keywords, x.weight, x.valid_at,
             x.invalid_at, ${by.distance} AS distance
      FROM edges x
      WHERE x.tenant_id = ${scope.tenantId} AND x.graph_id = ${scope.graphId} AND ${liveEdge(scope, 'x')}
        AND ${by.column} IS NOT NULL${sameEmbedder(scope, 'x')} AND ${edgeVisible(scope, 'x')}
      ORDER BY distance
      LIMIT ${k})
    SELECT ${edgeColumns}, 1 - x.distance AS score
    FROM nearest x
    ${edgeEndpointJoins(scope)}
    ORDER BY x.distance, x.id`;
}

/**
 * Chunks nearest by text vector and by summary vector, each from its own HNSW index, in one
 * statement; a chunk found both ways keeps its better similarity.
 */
export function chunkSearchSql(scope: Scope, vector: number[], k: number): SQL {
  const nearestIn = (column: 'embedding' | 'summary_embedding') => {
    const by = nearestBy('c', column, vector, scope.vectorTier);
    return sql`
      SELECT c.id, c.document_id, c.text, c.token_count, ${by.distance} AS distance
      FROM chunks c
      WHERE c.tenant_id = ${scope.tenantId} AND c.graph_id = ${scope.graphId} AND ${by.column} IS NOT NULL${sameEmbedder(scope, 'c')}
        AND ${chunkVisible(scope, 'c')}
      ORDER BY distance
      LIMIT ${k}`;
  };
  return sql`WITH by_text AS MATERIALIZED (${nearestIn('embedding')}),
      by_summary AS MATERIALIZED (${nearestIn('summary_embedding')}),
      c AS (
        SELECT DISTINCT ON (id) id, document_id, text, token_count, distance
        FROM (SELECT * FROM by_text UNION ALL SELECT * FROM by_summary) found
        ORDER BY id, distance)
    SELECT ${chunkColumns}, 1 - c.distance AS score
    FROM c
    JOIN documents d ON d.tenant_id = ${scope.tenantId} AND d.graph_id = ${scope.graphId} AND d.id = c.document_id
    ORDER BY c.distance, c.id
    LIMIT ${k}`;
}

// ---- expansions --------------------------------------------------------------------------

const edgeColumns = sql.raw(`x.id, x.source_id, x.target_id, s.name AS source, t.name AS target, x.relation,
  x.description, x.keywords, x.weight, x.valid_at, x.invalid_at`);

const edgeEndpointJoins = ({ tenantId, graphId }: Scope) => sql`
    JOIN entities s ON s.tenant_id = ${tenantId} AND s.graph_id = ${graphId} AND s.id = x.source_id
    JOIN entities t ON t.tenant_id = ${tenantId} AND t.graph_id = ${graphId} AND t.id = x.target_id`;

const chunkColumns = sql.raw(
  `c.id AS chunk_id, c.document_id, d.name AS document_name, d.document_date, d.loaded_at, c.text, c.token_count`,
);

/** One-hop expansion reads at most this many of an entity hit's live edges per direction (newest first). */
export const EXPANSION_EDGES_PER_DIRECTION = 8;

/** An endpoint's degree, for ranking expanded edges, is counted up to this many live edges per direction. */
export const EXPANSION_DEGREE_CAP = 64;

/**
 * Live visible edges touching `entityIds` (one hop), strongest first: by the degree of their
 * endpoints, then weight. The cost is bounded whatever the hubs' degree (README: "One-hop
 * expansion"):
 * - candidates: per entity hit and direction, its EXPANSION_EDGES_PER_DIRECTION newest live
 *   edges, read backwards along `edges_live_{source,target}_idx` (tenant, entity, created_at)
 *   WHERE expired_at IS NULL; the visibility probe runs on those rows only. The `created_at >=`
 *   bound (the n-th newest timestamp, from the same index) keeps the planner on that ordered,
 *   early-stopping scan: without it it estimates ~3 edges per entity and reads all of a hub's
 *   edges through a bitmap scan, probing and sorting each;
 * - degree: live edges touching the endpoint (visible or not: it only ranks), counted up to
 *   EXPANSION_DEGREE_CAP per direction, from the same indexes.
 */
export function edgesAroundSql(scope: Scope, entityIds: number[], limit: number): SQL {
  const { tenantId, graphId } = scope;
  const perDirection = EXPANSION_EDGES_PER_DIRECTION;
  const degreeOf = (id: SQL) => {
    const touching = (column: 'source_id' | 'target_id') => sql`(SELECT count(*) FROM (
        SELECT 1 FROM edges y
        WHERE y.tenant_id = ${tenantId} AND y.${sql.raw(column)} = ${id} AND ${liveEdge(scope, 'y')}
        LIMIT ${EXPANSION_DEGREE_CAP}) capped)`;
    return sql`(${touching('source_id')} + ${touching('target_id')})`;
  };
  const newest = (column: 'source_id' | 'target_id', other: 'source_id' | 'target_id') => sql`(
        SELECT x.id, x.source_id, x.target_id, x.${sql.raw(other)} AS other_id, x.relation, x.description,
               x.keywords, x.weight, x.valid_at, x.invalid_at
        FROM edges x
        WHERE x.tenant_id = ${tenantId} AND x.${sql.raw(column)} = hit.id AND ${liveEdge(scope, 'x')}
          AND x.graph_id = ${graphId}
          AND x.created_at >= (SELECT min(recent.created_at) FROM (
                SELECT y.created_at FROM edges y
                WHERE y.tenant_id = ${tenantId} AND y.${sql.raw(column)} = hit.id AND ${liveEdge(scope, 'y')}
                ORDER BY y.created_at DESC
                LIMIT ${perDirection}) recent)
          AND ${edgeVisible(scope, 'x')}
        ORDER BY x.created_at DESC, x.id DESC
        LIMIT ${perDirection})`;
  return sql`WITH hit AS MATERIALIZED (
      SELECT h.id, ${degreeOf(sql`h.id`)} AS degree
      FROM (SELECT DISTINCT id FROM unnest(${bigintArray(entityIds)}) AS wanted(id)) h),
    around AS MATERIALIZED (
      SELECT DISTINCT ON (c.id) c.*, hit.degree + ${degreeOf(sql`c.other_id`)} AS degree
      FROM hit
      CROSS JOIN LATERAL (${newest('source_id', 'target_id')} UNION ALL ${newest('target_id', 'source_id')}) c
      ORDER BY c.id)
    SELECT ${edgeColumns}, NULL::float8 AS score
    FROM around x
    ${edgeEndpointJoins(scope)}
    ORDER BY x.degree DESC, x.weight DESC, x.id
    LIMIT ${limit}`;
}

/** Visible entities by id (the endpoints of global edges), in the order of `ids`. */
export function entitiesByIdsSql(scope: Scope, ids: number[]): SQL {
  return sql`SELECT e.id, e.name, e.type, ${entityDescription(scope, 'e')}, 0::float8 AS score
    FROM unnest(${bigintArray(ids)}) WITH ORDINALITY AS wanted(id, position)
    JOIN entities e ON e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND e.id = wanted.id
    WHERE ${entityVisible(scope, 'e')}
    ORDER BY wanted.position`;
}

/** An entity supports retrieval with at most this many of its chunks (its newest). */
export const SUPPORTING_CHUNKS_PER_ENTITY = 64;

/**
 * Chunks of processed documents that support the given (ranked) entities and edges, with the
 * best position of each kind they support. `lead` says which ranking orders them first.
 * The support rows are ranked (sorted) first and only then joined to their chunk and document,
 * in that order, so the joins and the visibility check stop once `limit` visible chunks are
 * found; joined first, a hub endpoint's hundreds of chunks were each read and checked before
 * the sort kept twenty (9x fewer buffers at 100k edges, same rows in the same order).
 * An entity contributes its SUPPORTING_CHUNKS_PER_ENTITY newest chunks (a backward scan of
 * the entity_chunks key): a hub is named in thousands of chunks (9 453 for the top entity of
 * the 375k bench seed), and grouping all of them made this statement grow with the graph
 * (README: "Supporting chunks"). An edge's chunks are all used: a fact is stated in a few.
 */
export function supportingChunksSql(
  scope: Scope,
  input: { entityIds: number[]; edgeIds: number[]; lead: 'entities' | 'edges'; limit: number },
): SQL {
  const { tenantId, graphId } = scope;
  const [first, second] = input.lead === 'entities' ? ['entity_position', 'edge_position'] : ['edge_position', 'entity_position'];
  const order = sql.raw(`ranked.${first} NULLS LAST, ranked.hits DESC, ranked.${second} NULLS LAST, ranked.chunk_id`);
  return sql`WITH support AS (
      SELECT ec.chunk_id, r.position AS entity_position, NULL::bigint AS edge_position
      FROM unnest(${bigintArray(input.entityIds)}) WITH ORDINALITY AS r(id, position)
      CROSS JOIN LATERAL (
        SELECT ec.chunk_id FROM entity_chunks ec
        WHERE ec.tenant_id = ${tenantId} AND ec.entity_id = r.id
        ORDER BY ec.chunk_id DESC
        LIMIT ${SUPPORTING_CHUNKS_PER_ENTITY}) ec
      UNION ALL
      SELECT xc.chunk_id, NULL, r.position
      FROM unnest(${bigintArray(input.edgeIds)}) WITH ORDINALITY AS r(id, position)
      JOIN edge_chunks xc ON xc.tenant_id = ${tenantId} AND xc.edge_id = r.id),
    ranked AS (
      SELECT chunk_id, min(entity_position) AS entity_position, min(edge_position) AS edge_position, count(*) AS hits
      FROM support GROUP BY chunk_id)
    SELECT ${chunkColumns}, ranked.entity_position, ranked.edge_position
    FROM (SELECT * FROM ranked ORDER BY ${order}) ranked
    JOIN chunks c ON c.tenant_id = ${tenantId} AND c.graph_id = ${graphId} AND c.id = ranked.chunk_id
    JOIN documents d ON d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.id = c.document_id
    WHERE d.status = ${PROCESSED}${recordedBy(scope, 'c')}
    ORDER BY ${order}
    LIMIT ${input.limit}`;
}

export function graphHasContentSql(scope: Scope): SQL {
  const { tenantId, graphId } = scope;
  return sql`SELECT EXISTS (
      SELECT 1 FROM documents d
      JOIN chunks c ON c.tenant_id = d.tenant_id AND c.document_id = d.id
      WHERE d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.status = ${PROCESSED}
        AND c.graph_id = ${graphId}${recordedBy(scope, 'c')}) AS has_content`;
}
