import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, getTableColumns, inArray } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { EdgeRow, edges, EntityRow, entities } from '../schema';

/** Reads of graph rows by id, always within one tenant. */
@Injectable()
export class GraphReadsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async entitiesByIds(tenantId: string, ids: number[]): Promise<EntityFacts[]> {
    if (ids.length === 0) return [];
    return this.database.db
      .select(withoutVectors(getTableColumns(entities), 'embedding', 'nameEmbedding', 'embedding256', 'nameEmbedding256'))
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), inArray(entities.id, ids)))
      .orderBy(asc(entities.id));
  }

  async edgesByIds(tenantId: string, ids: number[]): Promise<EdgeFacts[]> {
    if (ids.length === 0) return [];
    return this.database.db
      .select(withoutVectors(getTableColumns(edges), 'embedding', 'embedding256', 'lexemes'))
      .from(edges)
      .where(and(eq(edges.tenantId, tenantId), inArray(edges.id, ids)))
      .orderBy(asc(edges.id));
  }

  /** Every entity and edge of a graph (tests and small admin views; not for large graphs). */
  async graphContents(tenantId: string, graphId: number): Promise<{ entities: EntityRow[]; edges: EdgeRow[] }> {
    const [entityRows, edgeRows] = await Promise.all([
      this.database.db
        .select()
        .from(entities)
        .where(and(eq(entities.tenantId, tenantId), eq(entities.graphId, graphId)))
        .orderBy(asc(entities.id)),
      this.database.db
        .select()
        .from(edges)
        .where(and(eq(edges.tenantId, tenantId), eq(edges.graphId, graphId)))
        .orderBy(asc(edges.id)),
    ]);
    return { entities: entityRows, edges: edgeRows };
  }
}

/*
 * Entities and edges as they are described to a client, without their vectors: drizzle parses a
 * vector's text on the calling thread, and gb remember's reply for a directory of 2,600 names
 * spent 1.4 s of the event loop parsing vectors it never shows.
 */
export type EntityFacts = Omit<EntityRow, 'embedding' | 'nameEmbedding' | 'embedding256' | 'nameEmbedding256'>;
export type EdgeFacts = Omit<EdgeRow, 'embedding' | 'embedding256' | 'lexemes'>;

function withoutVectors<T extends Record<string, unknown>, K extends keyof T>(columns: T, ...vectors: K[]): Omit<T, K> {
  const kept: Record<string, unknown> = { ...columns };
  for (const name of vectors) delete kept[name as string];
  return kept as Omit<T, K>;
}
