import { SQL, sql } from 'drizzle-orm';
import { halfvecParam } from '../vector-text';
import { QUERY_VECTOR } from '../vector-width';
import { storedWidth, vectorColumnAt } from '../vector-width';

/**
 * The SQL of entity resolution by name vector: for each of a chunk's names, the graph's entity
 * whose `name_embedding` is closest, in one statement (`i` is the name's position).
 *
 * Up to EXACT_NAME_SEARCH_MAX entities in a graph, the names are compared exactly with every
 * entity; beyond it, through the HNSW index. Measured on 1024-dimension vectors: an exact pass
 * costs one TOAST read per entity plus one distance per entity and name, an HNSW lookup about
 * 500 distances per name, so the two meet at a few hundred entities. A small graph inside a
 * large table (a gb dataset of a big tenant) stays exact, where an index scan filtered to it
 * would have to walk far before finding its rows.
 */
export const EXACT_NAME_SEARCH_MAX = 300;

export interface NearestByName {
  i: number;
  id: number;
  similarity: number;
}

/** `AND embedding_model = …` when the caller names its embedder: other models' vectors are not comparable. */
const sameEmbedder = (embeddingModel: string | undefined): SQL =>
  embeddingModel === undefined ? sql`` : sql` AND embedding_model = ${embeddingModel}`;

/**
 * The name-vector column the names are compared in: the one of their width (one embedder's
 * names, so one width; `name_embedding` or `name_embedding_256`, vector-width.ts).
 */
function nameColumn(vectors: number[][]): SQL {
  const width = storedWidth(vectors[0]?.length ?? 0);
  if (vectors.some((vector) => vector.length !== width)) throw new RangeError('names to resolve must be vectors of one stored width');
  return sql.raw(vectorColumnAt('name_embedding', width));
}

const wantedRows = (vectors: number[][]) =>
  sql.join(
    vectors.map((vector, i) => sql`(${i}::int, ${halfvecParam(vector)}::${QUERY_VECTOR})`),
    sql`, `,
  );

/** How many entities the graph has, counting no further than `cap` (a cheap index range). */
export const graphEntityCountSql = (tenantId: string, graphId: number, cap: number): SQL =>
  sql`SELECT count(*)::int AS n FROM (
      SELECT 1 FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} LIMIT ${cap}) AS graph_entities`;

/**
 * Exact: every name against every entity of the graph. subvector() copies each entity's vector
 * out of TOAST once (a MATERIALIZED CTE keeps the copy); compared directly, the vector would be
 * read out of TOAST again for every name.
 */
export function nearestByNameExactSql(tenantId: string, graphId: number, vectors: number[][], embeddingModel?: string): SQL {
  const column = nameColumn(vectors);
  return sql`WITH wanted(i, v) AS (VALUES ${wantedRows(vectors)}),
      graph AS MATERIALIZED (
        SELECT id, subvector(${column}, 1, vector_dims(${column})) AS v FROM entities
        WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} AND ${column} IS NOT NULL${sameEmbedder(embeddingModel)})
    SELECT DISTINCT ON (wanted.i) wanted.i, graph.id, 1 - (graph.v <=> wanted.v) AS similarity
    FROM wanted CROSS JOIN graph
    ORDER BY wanted.i, graph.v <=> wanted.v, graph.id`;
}

/**
 * Settings the index search runs under, for the rest of the transaction until restored. The
 * planner would sort the graph's rows instead of using the index: it underestimates how many a
 * graph has (tenant and graph are correlated) and what reading each vector out of TOAST costs,
 * so sorting is switched off. The iterative scan keeps going past `ef_search` candidates until
 * one of this graph turns up; JIT would compile for longer than the search takes.
 */
export const nameIndexSearchSettingsSql = (): SQL =>
  sql`SELECT current_setting('enable_sort') AS previous, set_config('enable_sort', 'off', true),
        set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('jit', 'off', true)`;

export const restoreSortSql = (previous: string): SQL => sql`SELECT set_config('enable_sort', ${previous}, true)`;

/** Through `entities_name_embedding_hnsw` (or its 256-wide twin), one index scan per name, filtered to the graph. */
export function nearestByNameThroughIndexSql(tenantId: string, graphId: number, vectors: number[][], embeddingModel?: string): SQL {
  const column = nameColumn(vectors);
  return sql`SELECT wanted.i, nearest.id, 1 - nearest.distance AS similarity
    FROM (VALUES ${wantedRows(vectors)}) AS wanted(i, v)
    CROSS JOIN LATERAL (
      SELECT id, ${column} <=> wanted.v AS distance FROM entities
      WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} AND ${column} IS NOT NULL${sameEmbedder(embeddingModel)}
      ORDER BY ${column} <=> wanted.v
      LIMIT 1) AS nearest`;
}
