import { Injectable } from '@nestjs/common';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import { Db, queryRows } from '../database';
import {
  ChunkRow,
  chunks,
  EdgeRow,
  edgeChunks,
  edgeDocuments,
  edges,
  EntityRow,
  entities,
  entityChunks,
  entityDocuments,
} from '../schema';

export type NewChunk = Omit<typeof chunks.$inferInsert, 'id' | 'createdAt'>;
export type NewEntity = Omit<typeof entities.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type NewEdge = Omit<typeof edges.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type EdgePatch = Partial<Pick<EdgeRow, 'weight' | 'description' | 'keywords' | 'validAt' | 'invalidAt' | 'expiredAt'>>;

export const vectorLiteral = (vector: number[]) => sql`${JSON.stringify(vector)}::vector`;

/**
 * The writes of ingestion. Every method takes the transaction it runs in: one chunk's
 * entities, edges, provenance and progress commit together or not at all.
 */
@Injectable()
export class GraphWritesRepository {
  /** Indexes of the document's chunks already written (a resumed job skips them). */
  async writtenChunkIndexes(db: Db, tenantId: string, documentId: number): Promise<Set<number>> {
    const rows = await db
      .select({ index: chunks.index })
      .from(chunks)
      .where(and(eq(chunks.tenantId, tenantId), eq(chunks.documentId, documentId)));
    return new Set(rows.map((r) => r.index));
  }

  async insertChunk(db: Db, chunk: NewChunk): Promise<ChunkRow> {
    const [row] = await db.insert(chunks).values(chunk).returning();
    return row;
  }

  /**
   * Serialises writers of the same entity name in a graph until the transaction ends, so two
   * documents ingested at once do not both create "Acme".
   */
  async lockEntityName(db: Db, tenantId: string, graphId: number, normalizedName: string): Promise<void> {
    await db.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`${tenantId}:${graphId}:${normalizedName}`}))`);
  }

  async entityByNormalizedName(db: Db, tenantId: string, graphId: number, normalizedName: string): Promise<EntityRow | undefined> {
    const [row] = await db
      .select()
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), eq(entities.graphId, graphId), eq(entities.normalizedName, normalizedName)))
      .orderBy(entities.id)
      .limit(1);
    return row;
  }

  /** The graph's entity whose name vector is closest to `vector`, with its cosine similarity. */
  async nearestEntityByName(
    db: Db,
    tenantId: string,
    graphId: number,
    vector: number[],
  ): Promise<{ id: number; similarity: number } | undefined> {
    // With a tenant/graph filter, HNSW must keep scanning until it finds rows of this graph.
    await db.execute(sql`SET LOCAL hnsw.iterative_scan = relaxed_order`);
    const [row] = await queryRows<{ id: number; similarity: number }>(
      db,
      sql`SELECT id, 1 - (name_embedding <=> ${vectorLiteral(vector)}) AS similarity
          FROM entities
          WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} AND name_embedding IS NOT NULL
          ORDER BY name_embedding <=> ${vectorLiteral(vector)}
          LIMIT 1`,
    );
    return row ? { id: Number(row.id), similarity: Number(row.similarity) } : undefined;
  }

  async entityById(db: Db, tenantId: string, entityId: number): Promise<EntityRow | undefined> {
    const [row] = await db
      .select()
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), eq(entities.id, entityId)));
    return row;
  }

  async insertEntity(db: Db, entity: NewEntity): Promise<EntityRow> {
    const [row] = await db.insert(entities).values(entity).returning();
    return row;
  }

  async updateEntity(db: Db, tenantId: string, entityId: number, patch: { description?: string; type?: string | null }): Promise<void> {
    await db
      .update(entities)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(entities.tenantId, tenantId), eq(entities.id, entityId)));
  }

  /** Live (not superseded) edges leaving `sourceId` with one of `relations`. */
  async liveEdgesFrom(db: Db, tenantId: string, sourceId: number, relations: string[]): Promise<EdgeRow[]> {
    if (relations.length === 0) return [];
    return db
      .select()
      .from(edges)
      .where(
        and(
          eq(edges.tenantId, tenantId),
          eq(edges.sourceId, sourceId),
          inArray(edges.relation, relations),
          isNull(edges.expiredAt),
        ),
      )
      .for('update');
  }

  async insertEdge(db: Db, edge: NewEdge): Promise<EdgeRow> {
    const [row] = await db.insert(edges).values(edge).returning();
    return row;
  }

  async updateEdge(db: Db, tenantId: string, edgeId: number, patch: EdgePatch): Promise<void> {
    await db
      .update(edges)
      .set({ ...patch, updatedAt: new Date() })
      .where(and(eq(edges.tenantId, tenantId), eq(edges.id, edgeId)));
  }

  async addEntityProvenance(db: Db, tenantId: string, entityId: number, documentId: number, chunkId?: number): Promise<void> {
    await db.insert(entityDocuments).values({ tenantId, entityId, documentId }).onConflictDoNothing();
    if (chunkId !== undefined) await db.insert(entityChunks).values({ tenantId, entityId, chunkId }).onConflictDoNothing();
  }

  async addEdgeProvenance(db: Db, tenantId: string, edgeId: number, documentId: number, chunkId?: number): Promise<void> {
    await db.insert(edgeDocuments).values({ tenantId, edgeId, documentId }).onConflictDoNothing();
    if (chunkId !== undefined) await db.insert(edgeChunks).values({ tenantId, edgeId, chunkId }).onConflictDoNothing();
  }
}
