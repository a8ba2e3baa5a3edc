import { Inject, Injectable } from '@nestjs/common';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from '../database';
import { GraphRow, graphs, jobs } from '../schema';
import type { VectorTier } from '../vector-width';
import { freeStoredText } from './ingestion-counts.repository';

export const DEFAULT_GRAPH_NAME = 'default';
export const DEFAULT_GB_DATASET = 'main';

/** What a gb dataset holds: its texts (artifacts) and the graph built from them. */
export interface GbDatasetContents {
  texts: number;
  chunks: number;
  entities: number;
  /** Every fact stored, superseded ones included. */
  edges: number;
}

export interface GbDatasetSummary extends GbDatasetContents {
  name: string;
  createdAt: Date;
  /** Facts not superseded: what query retrieves. */
  liveEdges: number;
  /** When its newest text was remembered; null if it has none. */
  lastRememberedAt: Date | null;
}

/** Where a graph keeps its searched vectors: its own columns once a bulk load began (graphs.own_vectors). */
export function vectorTierOf(graph: Pick<GraphRow, 'ownVectors'>): VectorTier {
  return graph.ownVectors ? 'own' : 'shared';
}

/** A tenant's graphs: its default graph (documents, /v1/query) and one per gb user and dataset. */
@Injectable()
export class GraphsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** The tenant's default graph, created on first use. */
  async defaultGraph(tenantId: string, db: Db = this.database.db): Promise<GraphRow> {
    return this.getOrCreate(db, tenantId, 'default', null, DEFAULT_GRAPH_NAME);
  }

  /** Where a graph of the tenant keeps its searched vectors now (shared if there is no such graph). */
  async vectorTier(tenantId: string, graphId: number): Promise<VectorTier> {
    const [row] = await this.database.db
      .select({ ownVectors: graphs.ownVectors })
      .from(graphs)
      .where(and(eq(graphs.tenantId, tenantId), eq(graphs.id, graphId)));
    return row ? vectorTierOf(row) : 'shared';
  }

  /** A gb user's dataset graph, created on first use (remember). */
  async gbGraph(tenantId: string, gbUserId: string, dataset: string, db: Db = this.database.db): Promise<GraphRow> {
    return this.getOrCreate(db, tenantId, 'gb', gbUserId, dataset);
  }

  /** A gb user's dataset graph if it exists (query never creates one). */
  async findGbGraph(tenantId: string, gbUserId: string, dataset: string): Promise<GraphRow | undefined> {
    const [row] = await this.database.db
      .select()
      .from(graphs)
      .where(and(eq(graphs.tenantId, tenantId), eq(graphs.kind, 'gb'), eq(graphs.gbUserId, gbUserId), eq(graphs.name, dataset)));
    return row;
  }

  /** A gb user's datasets with what each holds, by name. A user with none has an empty list. */
  async listGbDatasets(tenantId: string, gbUserId: string): Promise<GbDatasetSummary[]> {
    // Counted per table over the user's graphs only, each through its (tenant_id, graph_id) index.
    const rows = await queryRows<Record<string, unknown>>(
      this.database.db,
      sql`WITH g AS (
            SELECT id, name, created_at FROM graphs
            WHERE tenant_id = ${tenantId} AND kind = 'gb' AND gb_user_id = ${gbUserId}
          )
          SELECT g.name, g.created_at, d.last_at,
                 coalesce(d.n, 0) AS texts, coalesce(c.n, 0) AS chunks, coalesce(e.n, 0) AS entities,
                 coalesce(x.n, 0) AS edges, coalesce(x.live, 0) AS live_edges
          FROM g
          LEFT JOIN (SELECT graph_id, count(*)::int AS n, max(created_at) AS last_at FROM documents
                     WHERE tenant_id = ${tenantId} AND graph_id IN (SELECT id FROM g) GROUP BY graph_id) d ON d.graph_id = g.id
          LEFT JOIN (SELECT graph_id, count(*)::int AS n FROM chunks
                     WHERE tenant_id = ${tenantId} AND graph_id IN (SELECT id FROM g) GROUP BY graph_id) c ON c.graph_id = g.id
          LEFT JOIN (SELECT graph_id, count(*)::int AS n FROM entities
                     WHERE tenant_id = ${tenantId} AND graph_id IN (SELECT id FROM g) GROUP BY graph_id) e ON e.graph_id = g.id
          LEFT JOIN (SELECT graph_id, count(*)::int AS n, (count(*) FILTER (WHERE expired_at IS NULL))::int AS live FROM edges
                     WHERE tenant_id = ${tenantId} AND graph_id IN (SELECT id FROM g) GROUP BY graph_id) x ON x.graph_id = g.id
          ORDER BY g.name`,
    );
    return rows.map((r) => ({
      name: String(r.name),
      createdAt: new Date(r.created_at as string | Date),
      lastRememberedAt: r.last_at === null || r.last_at === undefined ? null : new Date(r.last_at as string | Date),
      texts: Number(r.texts),
      chunks: Number(r.chunks),
      entities: Number(r.entities),
      edges: Number(r.edges),
      liveEdges: Number(r.live_edges),
    }));
  }

  /**
   * Deletes a gb dataset and everything in it, in one transaction: the graph row, whose
   * foreign keys cascade to its texts, chunks, entities and edges (their vectors are columns of
   * those rows) and the provenance links; plus any queued job naming one of its texts.
   * Returns what it held, or undefined when there is no such dataset. The graph row is locked
   * first, so a remember writing into it concurrently waits and the counts are exact. The
   * inference ledger and the request log keep their rows: they are spend and history.
   */
  async deleteGbGraph(tenantId: string, gbUserId: string, dataset: string): Promise<GbDatasetContents | undefined> {
    return this.database.db.transaction(async (tx) => {
      const [graph] = await tx
        .select({ id: graphs.id })
        .from(graphs)
        .where(and(eq(graphs.tenantId, tenantId), eq(graphs.kind, 'gb'), eq(graphs.gbUserId, gbUserId), eq(graphs.name, dataset)))
        .for('update');
      if (!graph) return undefined;
      const [held] = await queryRows<Record<keyof GbDatasetContents | 'text_bytes', number>>(
        tx,
        sql`SELECT (SELECT count(*) FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})::int AS texts,
                   (SELECT count(*) FROM chunks WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})::int AS chunks,
                   (SELECT count(*) FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})::int AS entities,
                   (SELECT count(*) FROM edges WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})::int AS edges,
                   (SELECT coalesce(sum(octet_length(text)), 0) FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})::bigint AS text_bytes`,
      );
      // Compared as text: a job of another kind may carry a documentId that is not a number.
      await tx
        .delete(jobs)
        .where(
          and(
            eq(jobs.tenantId, tenantId),
            sql`${jobs.payload}->>'documentId' IN (SELECT id::text FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graph.id})`,
          ),
        );
      await tx.delete(graphs).where(and(eq(graphs.tenantId, tenantId), eq(graphs.id, graph.id)));
      await freeStoredText(tx, tenantId, Number(held.text_bytes));
      return { texts: Number(held.texts), chunks: Number(held.chunks), entities: Number(held.entities), edges: Number(held.edges) };
    });
  }

  private async getOrCreate(db: Db, tenantId: string, kind: 'default' | 'gb', gbUserId: string | null, name: string) {
    // Insert-or-nothing then read: safe when two requests create the same graph at once.
    await db.insert(graphs).values({ tenantId, kind, gbUserId, name }).onConflictDoNothing();
    const [row] = await db
      .select()
      .from(graphs)
      .where(
        and(
          eq(graphs.tenantId, tenantId),
          eq(graphs.kind, kind),
          gbUserId === null ? isNull(graphs.gbUserId) : eq(graphs.gbUserId, gbUserId),
          eq(graphs.name, name),
        ),
      );
    return row;
  }
}
