import { SQL, sql } from 'drizzle-orm';
import { nearestBy } from '@loci/db';
import { bigintArray, chunkVisible, edgeVisible, entityVisible, liveEdge, pastEdge, Scope } from '../visibility.sql';

/**
 * The SQL of gb query (the contract's steps 1–2). Like /v1/query, every statement is scoped to
 * `tenant_id` and the dataset's `graph_id`, and reads only rows a `processed` document (gb:
 * artifact) supports. Edges are live only (`expired_at IS NULL`) in every statement, so a
 * superseded fact is never retrieved and the cap of the expansion counts live facts only;
 * only include_history reads the others (historyAroundSql). At an instant (Scope.asOf: valid
 * time; Scope.knownAt: record time), live means what liveEdge says.
 */

const entityColumns = sql.raw(`e.id, e.name, e.type, e.description, e.updated_at`);

const edgeColumns = sql.raw(`x.id, x.source_id, x.target_id, s.name AS source, t.name AS target, x.relation,
  x.description, x.artifact_id, x.valid_at, x.invalid_at, x.created_at, x.expired_at`);

const edgeEndpointJoins = ({ tenantId, graphId }: Scope) => sql`
    JOIN entities s ON s.tenant_id = ${tenantId} AND s.graph_id = ${graphId} AND s.id = x.source_id
    JOIN entities t ON t.tenant_id = ${tenantId} AND t.graph_id = ${graphId} AND t.id = x.target_id`;

export interface KeywordScoring {
  /** The question normalized like entity names (for the whole-name match). */
  normalizedQuestion: string;
  terms: string[];
  wholeNameScore: number;
  termInNameScore: number;
  termInDescriptionScore: number;
  limit: number;
}

/**
 * Step 1.2–1.3: entities scored +5 when their whole normalized name appears in the question
 * (on word boundaries), +3 per term in the name, +1 per term in the description; those with a
 * score, best first, ties to the most recently updated.
 */
export function keywordSeedsSql(scope: Scope, k: KeywordScoring): SQL {
  const terms =
    k.terms.length === 0
      ? sql`SELECT NULL::text AS term WHERE false`
      : sql`SELECT term FROM (VALUES ${sql.join(
          k.terms.map((term) => sql`(${term}::text)`),
          sql`, `,
        )}) AS v(term)`;
  const padded = ` ${k.normalizedQuestion} `;
  // At a record instant, the visibility check reads created_at (recordedBy) off the scored rows.
  const recorded = scope.knownAt ? sql`, e.created_at` : sql``;
  return sql`WITH terms AS (${terms}),
    scored AS (
      SELECT ${entityColumns}${recorded},
        (CASE WHEN e.normalized_name <> '' AND strpos(${padded}::text, ' ' || e.normalized_name || ' ') > 0
              THEN ${k.wholeNameScore}::int ELSE 0 END)
        + coalesce((SELECT sum(
              (CASE WHEN strpos(lower(e.name), tm.term) > 0 THEN ${k.termInNameScore}::int ELSE 0 END)
            + (CASE WHEN strpos(lower(coalesce(e.description, '')), tm.term) > 0 THEN ${k.termInDescriptionScore}::int ELSE 0 END))
            FROM terms tm), 0) AS score
      FROM entities e
      WHERE e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId})
    SELECT e.* FROM scored e
    WHERE e.score > 0 AND ${entityVisible(scope, 'e')}
    ORDER BY e.score DESC, e.updated_at DESC, e.id DESC
    LIMIT ${k.limit}`;
}

/** The most recently updated visible entities (the fallback seeds). */
export function recentEntitiesSql(scope: Scope, limit: number): SQL {
  return sql`SELECT ${entityColumns}, 0 AS score FROM entities e
    WHERE e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND ${entityVisible(scope, 'e')}
    ORDER BY e.updated_at DESC, e.id DESC
    LIMIT ${limit}`;
}

/** Visible entities by id. */
export function entitiesByIdsSql(scope: Scope, ids: number[]): SQL {
  return sql`SELECT ${entityColumns}, 0 AS score FROM entities e
    WHERE e.tenant_id = ${scope.tenantId} AND e.graph_id = ${scope.graphId} AND e.id = ANY(${bigintArray(ids)})
      AND ${entityVisible(scope, 'e')}
    ORDER BY e.id`;
}

/** Step 2.2: live visible edges touching the seeds, newest first, capped. */
export function edgesAroundSql(scope: Scope, seedIds: number[], limit: number): SQL {
  return sql`SELECT ${edgeColumns} FROM edges x
    ${edgeEndpointJoins(scope)}
    WHERE x.tenant_id = ${scope.tenantId} AND x.graph_id = ${scope.graphId} AND ${liveEdge(scope, 'x')}
      AND (x.source_id = ANY(${bigintArray(seedIds)}) OR x.target_id = ANY(${bigintArray(seedIds)}))
      AND ${edgeVisible(scope, 'x')}
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT ${limit}`;
}

/**
 * include_history: the visible edges touching the seeds that were history at the scope's
 * instant (ended or superseded by then: pastEdge), newest first, capped like the one hop.
 */
export function historyAroundSql(scope: Scope, seedIds: number[], limit: number): SQL {
  return sql`SELECT ${edgeColumns} FROM edges x
    ${edgeEndpointJoins(scope)}
    WHERE x.tenant_id = ${scope.tenantId} AND x.graph_id = ${scope.graphId} AND ${pastEdge(scope, 'x')}
      AND (x.source_id = ANY(${bigintArray(seedIds)}) OR x.target_id = ANY(${bigintArray(seedIds)}))
      AND ${edgeVisible(scope, 'x')}
    ORDER BY x.created_at DESC, x.id DESC
    LIMIT ${limit}`;
}

/** Live visible edges by id (similar facts resolved through the database). */
export function liveEdgesByIdsSql(scope: Scope, ids: number[]): SQL {
  return sql`SELECT ${edgeColumns} FROM edges x
    ${edgeEndpointJoins(scope)}
    WHERE x.tenant_id = ${scope.tenantId} AND x.graph_id = ${scope.graphId} AND ${liveEdge(scope, 'x')}
      AND x.id = ANY(${bigintArray(ids)}) AND ${edgeVisible(scope, 'x')}`;
}

/** Chunks of processed documents by id, with their text and summary. */
export function chunksByIdsSql(scope: Scope, ids: number[]): SQL {
  return sql`SELECT c.id, c.document_id, c.index, c.text, c.summary FROM chunks c
    WHERE c.tenant_id = ${scope.tenantId} AND c.graph_id = ${scope.graphId} AND c.id = ANY(${bigintArray(ids)})
      AND ${chunkVisible(scope, 'c')}`;
}

export type VectorIndex = 'entities' | 'edges' | 'chunks' | 'summaries';

/**
 * Step 2: the best `k` of one index by cosine similarity, kept from `minSimilarity`; ids and
 * scores only (the rows are then read by id). Superseded edges are filtered inside the nearest
 * scan, so the best k are live facts. Needs `hnsw.iterative_scan`, which every Loci session has (SESSION_SETTINGS).
 */
export function vectorSearchSql(scope: Scope, index: VectorIndex, vector: number[], k: number, minSimilarity: number): SQL {
  const { table, alias, column, extra } = {
    entities: { table: 'entities', alias: 'e', column: 'embedding' as const, extra: entityVisible(scope, 'e') },
    edges: { table: 'edges', alias: 'x', column: 'embedding' as const, extra: sql`${liveEdge(scope, 'x')} AND ${edgeVisible(scope, 'x')}` },
    chunks: { table: 'chunks', alias: 'c', column: 'embedding' as const, extra: chunkVisible(scope, 'c') },
    summaries: { table: 'chunks', alias: 'c', column: 'summary_embedding' as const, extra: chunkVisible(scope, 'c') },
  }[index];
  const by = nearestBy(alias, column, vector, scope.vectorTier);
  return sql`WITH nearest AS MATERIALIZED (
      SELECT ${sql.raw(alias)}.id, ${by.distance} AS distance
      FROM ${sql.raw(table)} ${sql.raw(alias)}
      WHERE ${sql.raw(alias)}.tenant_id = ${scope.tenantId} AND ${sql.raw(alias)}.graph_id = ${scope.graphId}
        AND ${by.column} IS NOT NULL AND ${extra}
      ORDER BY distance
      LIMIT ${k})
    SELECT id, 1 - distance AS score FROM nearest
    WHERE 1 - distance >= ${minSimilarity}::float8
    ORDER BY distance, id`;
}
