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
   * Valid time (`as_of`): the facts true at this instant, by everything Loci knows now (facts
   * superseded since included, facts recorded since included). Unset: now, the live graph, with
   * the very SQL retrieval always sent (every helper below renders exactly its old text without
   * it or knownAt, so plans and latency stay as they were).
   */
  asOf?: Date;
  /**
   * Record time (`known_at`): only what Loci had recorded by this instant, as it stood then (a
   * fact superseded later is still live then; rows ingested later are not seen).
   */
  knownAt?: Date;
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
 * The live-fact predicate on edge `alias`.
 * - Now: not superseded (`expired_at IS NULL`; an ended fact, invalid_at set, is live history).
 * - At `knownAt` (record time): recorded by then and not yet superseded then; what the record
 *   held as current at that instant.
 * - At `asOf` (valid time): true then (valid_at <= asOf < invalid_at, an unknown bound open),
 *   whether or not it was superseded since: a supersession ends a fact's validity at the new
 *   one's start (invalid_at), so the earlier fact is what was true before it.
 * - Both: what Loci had recorded by knownAt as true at asOf. An end recorded after knownAt
 *   (its supersession, expired_at > knownAt) was not known then, so it does not end the fact.
 */
export function liveEdge({ asOf, knownAt }: Scope, alias: string): SQL {
  if (asOf === undefined && knownAt === undefined) return sql.raw(`${alias}.expired_at IS NULL`);
  const a = sql.raw(alias);
  const recorded = knownAt === undefined ? undefined : sql`${a}.created_at <= ${instant(knownAt)} AND (${a}.expired_at IS NULL OR ${a}.expired_at > ${instant(knownAt)})`;
  if (asOf === undefined) return recorded!;
  const t = instant(asOf);
  const endKnown = knownAt === undefined ? sql`` : sql` OR ${a}.expired_at > ${instant(knownAt)}`;
  const valid = sql`(${a}.valid_at IS NULL OR ${a}.valid_at <= ${t}) AND (${a}.invalid_at IS NULL OR ${a}.invalid_at > ${t}${endKnown})`;
  return recorded === undefined ? valid : sql`${recorded} AND ${valid}`;
}

/**
 * History at the scope's instant on edge `alias` (gb's include_history): begun by then and by
 * then ended (invalid_at) or superseded (expired_at, a record-time end: only without asOf).
 * With knownAt, only what was recorded by then. The facts liveEdge leaves out, except those
 * not yet recorded or not yet begun.
 */
export function pastEdge({ asOf, knownAt }: Scope, alias: string): SQL {
  const a = sql.raw(alias);
  const t = instant(asOf ?? knownAt ?? new Date());
  const recorded = knownAt === undefined ? sql`` : sql`${a}.created_at <= ${instant(knownAt)} AND `;
  const ended = asOf === undefined ? sql`(${a}.expired_at <= ${t} OR ${a}.invalid_at <= ${t})` : sql`${a}.invalid_at <= ${t}`;
  return sql`${recorded}(${a}.valid_at IS NULL OR ${a}.valid_at <= ${t}) AND ${ended}`;
}

/**
 * An entity's description as a select-list column. At a record instant (knownAt), only an
 * entity unchanged since then keeps it: descriptions are merged in place, so a later one may
 * tell what was learned after it ("Alice joined Globex."). Otherwise the column as it is (at a
 * valid instant the description is today's knowledge; the facts carry their dates).
 */
export const entityDescription = ({ knownAt }: Scope, alias: string): SQL =>
  knownAt === undefined
    ? sql.raw(`${alias}.description`)
    : sql`(CASE WHEN ${sql.raw(alias)}.updated_at <= ${instant(knownAt)} THEN ${sql.raw(alias)}.description END) AS description`;

/**
 * `AND <alias>.created_at <= knownAt` for a row that must have been recorded by the record
 * instant (an entity, a chunk: one ingested after it is not seen); nothing without knownAt. A
 * valid instant (asOf) keeps every row: a text remembered today may tell of 2020.
 */
export const recordedBy = ({ knownAt }: Scope, alias: string): SQL =>
  knownAt === undefined ? sql`` : sql` AND ${sql.raw(alias)}.created_at <= ${instant(knownAt)}`;

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
