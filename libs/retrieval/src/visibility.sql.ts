import { SQL, sql } from 'drizzle-orm';
import type { VectorTier } from '@loci/db';

/** The graph a search runs in: one tenant's one graph, in every statement. */
export interface Scope {
  tenantId: string;
  graphId: number;
  /**
   * The embedder of the question's vectors: vector searches compare only with rows it wrote
   * (`embedding_model`), since vectors of different embedders are not comparable. Unset: any.
   */
  embeddingModel?: string;
  /**
   * The instant the question looks at (`as_of`): only what was true then, as it was recorded
   * then. Unset: now, the live graph, with the very SQL retrieval always sent (every helper
   * below renders exactly its old text without it, so plans and latency stay as they were).
   */
  asOf?: Date;
  /** Where the graph keeps its searched vectors (VectorTier in @loci/db); shared when unset. */
  vectorTier?: VectorTier;
}

/** `AND <alias>.embedding_model = …` when the scope names the embedder, else nothing. */
export const sameEmbedder = ({ embeddingModel }: Scope, alias: string): SQL =>
  embeddingModel === undefined ? sql`` : sql` AND ${sql.raw(alias)}.embedding_model = ${embeddingModel}`;

export const PROCESSED = sql.raw(`'processed'`);

/** The instant as a timestamptz parameter (a text one: both drivers bind it alike). */
const instant = (at: Date): SQL => sql`${at.toISOString()}::timestamptz`;

/**
 * The live-fact predicate on edge `alias`. Now: not superseded (`expired_at IS NULL`; an ended
 * fact, invalid_at set, is live history). At `asOf`: recorded by then (created_at), not yet
 * superseded then (expired_at), and true then (valid_at <= asOf < invalid_at, an unknown bound
 * open). A fact superseded later is seen at an instant before its supersession.
 */
export function liveEdge({ asOf }: Scope, alias: string): SQL {
  if (asOf === undefined) return sql.raw(`${alias}.expired_at IS NULL`);
  const a = sql.raw(alias);
  const t = instant(asOf);
  return sql`${a}.created_at <= ${t} AND (${a}.expired_at IS NULL OR ${a}.expired_at > ${t})
    AND (${a}.valid_at IS NULL OR ${a}.valid_at <= ${t}) AND (${a}.invalid_at IS NULL OR ${a}.invalid_at > ${t})`;
}

/**
 * History at instant `at` on edge `alias` (gb's include_history): recorded and begun by then,
 * and by then superseded (expired_at) or ended (invalid_at). The facts liveEdge leaves out at
 * `at`, except those not yet recorded or not yet begun.
 */
export function pastEdge(at: Date, alias: string): SQL {
  const a = sql.raw(alias);
  const t = instant(at);
  return sql`${a}.created_at <= ${t} AND (${a}.valid_at IS NULL OR ${a}.valid_at <= ${t})
    AND (${a}.expired_at <= ${t} OR ${a}.invalid_at <= ${t})`;
}

/**
 * An entity's description as a select-list column. At an instant, only an entity unchanged
 * since then keeps it: descriptions are merged in place, so a later one may tell what was
 * learned after the instant ("Alice joined Globex."). Now: the column as it is.
 */
export const entityDescription = ({ asOf }: Scope, alias: string): SQL =>
  asOf === undefined
    ? sql.raw(`${alias}.description`)
    : sql`(CASE WHEN ${sql.raw(alias)}.updated_at <= ${instant(asOf)} THEN ${sql.raw(alias)}.description END) AS description`;

/**
 * `AND <alias>.created_at <= asOf` for a row that must have existed at the instant (an entity,
 * a chunk: one ingested after asOf is not seen); nothing without asOf.
 */
export const recordedBy = ({ asOf }: Scope, alias: string): SQL =>
  asOf === undefined ? sql`` : sql` AND ${sql.raw(alias)}.created_at <= ${instant(asOf)}`;

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
export const entityVisible = (scope: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM entity_documents vd
  JOIN documents vdoc ON vdoc.tenant_id = vd.tenant_id AND vdoc.id = vd.document_id
  WHERE vd.tenant_id = ${scope.tenantId} AND vd.entity_id = ${sql.raw(alias)}.id
    AND vdoc.graph_id = ${scope.graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)${recordedBy(scope, alias)}`;

export const edgeVisible = ({ tenantId, graphId }: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM edge_documents vd
  JOIN documents vdoc ON vdoc.tenant_id = vd.tenant_id AND vdoc.id = vd.document_id
  WHERE vd.tenant_id = ${tenantId} AND vd.edge_id = ${sql.raw(alias)}.id
    AND vdoc.graph_id = ${graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)`;

export const chunkVisible = (scope: Scope, alias: string): SQL => sql`EXISTS (
  SELECT 1 FROM documents vdoc
  WHERE vdoc.tenant_id = ${scope.tenantId} AND vdoc.id = ${sql.raw(alias)}.document_id
    AND vdoc.graph_id = ${scope.graphId} AND vdoc.status = ${PROCESSED} OFFSET 0)${recordedBy(scope, alias)}`;
