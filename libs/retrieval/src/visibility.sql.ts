import { SQL, sql } from 'drizzle-orm';

/** The graph a search runs in: one tenant's one graph, in every statement. */
export interface Scope {
  tenantId: string;
  graphId: number;
  /**
   * The embedder of the question's vectors: vector searches compare only with rows it wrote
   * (`embedding_model`), since vectors of different embedders are not comparable. Unset: any.
   */
  embeddingModel?: string;
}

/** `AND <alias>.embedding_model = …` when the scope names the embedder, else nothing. */
export const sameEmbedder = ({ embeddingModel }: Scope, alias: string): SQL =>
  embeddingModel === undefined ? sql`` : sql` AND ${sql.raw(alias)}.embedding_model = ${embeddingModel}`;

export const PROCESSED = sql.raw(`'processed'`);

/** `ids` as one bigint[] parameter (ids are numbers, so the literal is safe and driver-neutral). */
export const bigintArray = (ids: number[]) => sql`${`{${ids.map((id) => Math.trunc(id)).join(',')}}`}::bigint[]`;

/*
 * Visibility is a per-row probe (primary-key lookups), not a semi join: `OFFSET 0` keeps the
 * planner from pulling the EXISTS up into a join. As a join its selectivity is badly
 * underestimated (documents by status and graph), which makes an HNSW scan look like it must
 * walk most of the index, and the planner then sorts the whole graph exactly instead. As a
 * probe it costs per row scanned, which is what it really costs, and the HNSW plan stops after
 * k visible rows.
 */
export const entityVisible = ({ tenantId, graphId }: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM entity_documents vd
  JOIN documents vdoc ON vdoc.tenant_id = vd.tenant_id AND vdoc.id = vd.document_id
  WHERE vd.tenant_id = ${tenantId} AND vd.entity_id = ${sql.raw(alias)}.id
    AND vdoc.graph_id = ${graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)`;

export const edgeVisible = ({ tenantId, graphId }: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM edge_documents vd
  JOIN documents vdoc ON vdoc.tenant_id = vd.tenant_id AND vdoc.id = vd.document_id
  WHERE vd.tenant_id = ${tenantId} AND vd.edge_id = ${sql.raw(alias)}.id
    AND vdoc.graph_id = ${graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)`;

export const chunkVisible = ({ tenantId, graphId }: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM documents vdoc
  WHERE vdoc.tenant_id = ${tenantId} AND vdoc.id = ${sql.raw(alias)}.document_id
    AND vdoc.graph_id = ${graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)`;
