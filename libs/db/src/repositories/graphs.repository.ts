import { Inject, Injectable } from '@nestjs/common';
import { and, eq, isNull } from 'drizzle-orm';
import { Database, DATABASE, Db } from '../database';
import { GraphRow, graphs } from '../schema';

export const DEFAULT_GRAPH_NAME = 'default';
export const DEFAULT_GB_DATASET = 'main';

/** A tenant's graphs: its default graph (documents, /v1/query) and one per gb user and dataset. */
@Injectable()
export class GraphsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** The tenant's default graph, created on first use. */
  async defaultGraph(tenantId: string, db: Db = this.database.db): Promise<GraphRow> {
    return this.getOrCreate(db, tenantId, 'default', null, DEFAULT_GRAPH_NAME);
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
