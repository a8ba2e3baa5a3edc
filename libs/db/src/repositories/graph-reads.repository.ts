import { Inject, Injectable } from '@nestjs/common';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { EdgeRow, edges, EntityRow, entities } from '../schema';

/** Reads of graph rows by id, always within one tenant. */
@Injectable()
export class GraphReadsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async entitiesByIds(tenantId: string, ids: number[]): Promise<EntityRow[]> {
    if (ids.length === 0) return [];
    return this.database.db
      .select()
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), inArray(entities.id, ids)))
      .orderBy(asc(entities.id));
  }

  async edgesByIds(tenantId: string, ids: number[]): Promise<EdgeRow[]> {
    if (ids.length === 0) return [];
    return this.database.db
      .select()
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
