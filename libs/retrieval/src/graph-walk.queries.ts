import { SQL, sql } from 'drizzle-orm';
import { bigintArray, PROCESSED, Scope } from './visibility.sql';
import { SUPPORTING_CHUNKS_PER_ENTITY } from './retrieval.queries';

/**
 * The mentions (entity_chunks rows) a walk from the seeds can use within two hops: the entities
 * named in the seed chunks, and for those and the seed entities, the chunks naming them (each
 * entity's SUPPORTING_CHUNKS_PER_ENTITY newest, so a hub costs as much as any entity). Ids are
 * the graph's own (seeds come from this graph's searches), so the rows are too.
 */
export function walkMentionsSql(scope: Scope, entityIds: number[], chunkIds: number[]): SQL {
  const { tenantId } = scope;
  return sql`WITH first_hop AS MATERIALIZED (
      SELECT ec.entity_id, ec.chunk_id
      FROM unnest(${bigintArray(chunkIds)}) AS seed(id)
      JOIN entity_chunks ec ON ec.tenant_id = ${tenantId} AND ec.chunk_id = seed.id),
    reached AS (
      SELECT entity_id FROM first_hop
      UNION
      SELECT id FROM unnest(${bigintArray(entityIds)}) AS seed(id))
    SELECT entity_id, chunk_id FROM first_hop
    UNION
    SELECT r.entity_id, m.chunk_id
    FROM reached r
    CROSS JOIN LATERAL (
      SELECT ec.chunk_id FROM entity_chunks ec
      WHERE ec.tenant_id = ${tenantId} AND ec.entity_id = r.entity_id
      ORDER BY ec.chunk_id DESC
      LIMIT ${SUPPORTING_CHUNKS_PER_ENTITY}) m`;
}

/** Chunks of processed documents by id, in the order of `ids`. */
export function chunksByIdsSql(scope: Scope, ids: number[]): SQL {
  const { tenantId, graphId } = scope;
  return sql`SELECT c.id AS chunk_id, c.document_id, d.name AS document_name, d.document_date, d.loaded_at, c.text,
           c.token_count, 0::float8 AS score
    FROM unnest(${bigintArray(ids)}) WITH ORDINALITY AS wanted(id, position)
    JOIN chunks c ON c.tenant_id = ${tenantId} AND c.graph_id = ${graphId} AND c.id = wanted.id
    JOIN documents d ON d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.id = c.document_id
    WHERE d.status = ${PROCESSED}
    ORDER BY wanted.position`;
}

/** A linked document's chunks that join the walk: its newest this many (as for an entity). */
export const CHUNKS_PER_LINKED_DOCUMENT = SUPPORTING_CHUNKS_PER_ENTITY;

/**
 * The chunks of processed documents whose name key (documents.name_key) is one of `keys`: the
 * documents a passage or a question names.
 */
export function chunksOfDocumentsNamedSql(scope: Scope, keys: string[]): SQL {
  const { tenantId, graphId } = scope;
  const literal = `{${keys.map((k) => `"${k.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
  return sql`SELECT d.id AS document_id, d.name_key, c.id AS chunk_id
    FROM documents d
    CROSS JOIN LATERAL (
      SELECT c.id FROM chunks c
      WHERE c.tenant_id = ${tenantId} AND c.document_id = d.id
      ORDER BY c.id DESC
      LIMIT ${CHUNKS_PER_LINKED_DOCUMENT}) c
    WHERE d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.name_key = ANY(${literal}::text[])
      AND d.status = ${PROCESSED}`;
}
