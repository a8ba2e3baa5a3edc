import { SQL, sql } from 'drizzle-orm';
import { bigintArray, entityVisible, PROCESSED, recordedBy, Scope } from './visibility.sql';
import { SUPPORTING_CHUNKS_PER_ENTITY } from './retrieval.queries';
import { namesSomething } from './lexical.queries';

/** What the walk reads around its seeds, in one statement (walkNeighbourhoodSql). */
export interface WalkNeighbourhoodInput {
  /** The seed entities (named in or nearest to the question). */
  entityIds: number[];
  /** The seed passages (BM25's best). */
  chunkIds: number[];
  /** Normalised names the seed passages spell out: matched to entity names and document name keys. */
  names: string[];
  /** At most this many entities matched by `names` join the walk (longest names first). */
  maxLinked: number;
}

/**
 * Everything the walk of the local path reads, in one round trip (it was three: the linked
 * entities, the linked documents, then the mentions, which need the linked entities' ids):
 * - `link` rows: visible entities whose normalised name is one of `names` (entity_id, name);
 * - `document` rows: the newest chunks of processed documents whose name key is one of `names`
 *   (document_id as entity_id, name_key as name, chunk_id);
 * - one `mentions` row: entity_chunks within two hops of the seeds (the linked entities counted
 *   among the seed entities), as two JSON arrays of the same length (`pairs`: entity ids, chunk
 *   ids). Thousands of them come back for a question; one JSON value is parsed natively, where a
 *   row each was the largest share of a question's row parsing on the API's event loop. In a
 *   fixed order, whatever the plan: the walk's sums follow it, and near-equal scores came out in
 *   another order under another plan (record 0080).
 */
export function walkNeighbourhoodSql(scope: Scope, input: WalkNeighbourhoodInput): SQL {
  const { tenantId, graphId } = scope;
  // As JSON: JSON.stringify is native, where quoting hundreds of names into a text[] literal
  // was a visible share of the walk's CPU.
  const names = JSON.stringify(input.names);
  // The names (hundreds: every capitalised run of three passages) are sent once and joined, not
  // compared with = ANY(constant): the planner estimated that array element by element (1-2 ms
  // of planning at the 10k bench). The documents they name are matched first and only those
  // tested for a key of stopwords alone: in one scan with the match, the planner stemmed every
  // document name of the graph (~4 ms of a question's CPU at the 10k bench).
  return sql`WITH wanted AS MATERIALIZED (
      SELECT DISTINCT name FROM json_array_elements_text(${names}::json) AS n(name)),
    linked AS MATERIALIZED (
      SELECT e.id, e.normalized_name
      FROM entities e
      WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId} AND e.normalized_name IN (SELECT name FROM wanted)
        AND ${entityVisible(scope, 'e')}
      ORDER BY length(e.normalized_name) DESC, e.id
      LIMIT ${input.maxLinked}),
    named_documents AS MATERIALIZED (
      SELECT d.id, d.name_key
      FROM documents d
      WHERE d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.name_key IN (SELECT name FROM wanted)
        AND d.status = ${PROCESSED}),
    linked_documents AS MATERIALIZED (
      SELECT d.id AS document_id, d.name_key, c.id AS chunk_id
      FROM named_documents d
      CROSS JOIN LATERAL (
        SELECT c.id FROM chunks c
        WHERE c.tenant_id = ${tenantId} AND c.document_id = d.id
        ORDER BY c.id DESC
        LIMIT ${CHUNKS_PER_LINKED_DOCUMENT}) c
      WHERE ${namesSomething('d.name_key')}),
    first_hop AS MATERIALIZED (
      SELECT ec.entity_id, ec.chunk_id
      FROM unnest(${bigintArray(input.chunkIds)}) AS seed(id)
      JOIN entity_chunks ec ON ec.tenant_id = ${tenantId} AND ec.chunk_id = seed.id),
    reached AS (
      SELECT entity_id FROM first_hop
      UNION
      SELECT id FROM unnest(${bigintArray(input.entityIds)}) AS seed(id)
      UNION
      SELECT id FROM linked),
    mentions AS (
      SELECT entity_id, chunk_id FROM first_hop
      UNION
      SELECT r.entity_id, m.chunk_id
      FROM reached r
      CROSS JOIN LATERAL (
        SELECT ec.chunk_id FROM entity_chunks ec
        WHERE ec.tenant_id = ${tenantId} AND ec.entity_id = r.entity_id
        ORDER BY ec.chunk_id DESC
        LIMIT ${SUPPORTING_CHUNKS_PER_ENTITY}) m)
    SELECT 'link' AS kind, id AS entity_id, normalized_name AS name, NULL::bigint AS chunk_id, NULL::json AS pairs FROM linked
    UNION ALL
    SELECT 'document', document_id, name_key, chunk_id, NULL FROM linked_documents
    UNION ALL
    SELECT 'mentions', NULL, NULL, NULL, json_build_array(
      COALESCE(json_agg(entity_id ORDER BY entity_id, chunk_id), '[]'), COALESCE(json_agg(chunk_id ORDER BY entity_id, chunk_id), '[]'))
    FROM mentions`;
}

/** Chunks of processed documents by id, in the order of `ids`. */
export function chunksByIdsSql(scope: Scope, ids: number[]): SQL {
  const { tenantId, graphId } = scope;
  return sql`SELECT c.id AS chunk_id, c.document_id, d.name AS document_name, d.document_date, d.loaded_at, c.text,
           c.token_count, 0::float8 AS score
    FROM unnest(${bigintArray(ids)}) WITH ORDINALITY AS wanted(id, position)
    JOIN chunks c ON c.tenant_id = ${tenantId} AND c.graph_id = ${graphId} AND c.id = wanted.id
    JOIN documents d ON d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.id = c.document_id
    WHERE d.status = ${PROCESSED}${recordedBy(scope, 'c')}
    ORDER BY wanted.position`;
}

/** A linked document's chunks that join the walk: its newest this many (as for an entity). */
export const CHUNKS_PER_LINKED_DOCUMENT = SUPPORTING_CHUNKS_PER_ENTITY;
