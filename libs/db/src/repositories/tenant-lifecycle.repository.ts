import { Inject, Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { Database, DATABASE, Db, queryRows } from '../database';
import { isUuid } from '../ids';
import {
  apiKeys,
  chunks,
  chunkTerms,
  documents,
  edgeChunks,
  edgeDocuments,
  edges,
  entities,
  entityChunks,
  entityDocuments,
  geoBackfillProgress,
  graphs,
  inferences,
  jobs,
  limitRefusals,
  mcpOauthCodes,
  mcpOauthTokens,
  questionCounts,
  ingestionDays,
  tenantStorage,
  requestLogs,
  TenantRow,
  tenants,
  users,
} from '../schema';

/**
 * The tenant's tables, children before parents. Deleting them in this order, one statement a
 * table, finds nothing left for the foreign keys' cascades and SET NULLs to do row by row
 * (a document deleted before its edges would first update each edge's artifact_id). The final
 * DELETE of the tenant row still cascades, so a table added later and missing here is deleted
 * all the same, only more slowly.
 */
const TENANT_TABLES_CHILDREN_FIRST: ReadonlyArray<PgTable & { tenantId: unknown }> = [
  chunkTerms,
  edgeChunks,
  entityChunks,
  edgeDocuments,
  entityDocuments,
  edges,
  entities,
  chunks,
  documents,
  graphs,
  jobs,
  inferences,
  requestLogs,
  limitRefusals,
  questionCounts,
  ingestionDays,
  tenantStorage,
  geoBackfillProgress,
  mcpOauthCodes,
  mcpOauthTokens,
  apiKeys,
  users,
];

/** What a tenant holds: what its deletion removes, counted for the operator who confirms it. */
export interface TenantHoldings {
  /** Uploaded documents and gb remembered texts. */
  documents: number;
  gbDatasets: number;
  entities: number;
  facts: number;
  users: number;
  /** Keys neither revoked nor expired. */
  liveApiKeys: number;
}

/** Suspension and deletion of tenants: what operators do to a tenant's whole life. */
@Injectable()
export class TenantLifecycleRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Suspends (at the store's now(), kept if already suspended) or resumes the tenant; answers
   * its row, or undefined when there is no such tenant.
   */
  async setSuspended(tenantId: string, suspended: boolean, db: Db = this.database.db): Promise<TenantRow | undefined> {
    if (!isUuid(tenantId)) return undefined;
    const [row] = await db
      .update(tenants)
      .set({ suspendedAt: suspended ? sql`coalesce(${tenants.suspendedAt}, now())` : null, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
      .returning();
    return row;
  }

  /**
   * What the tenant holds, or undefined when there is no such tenant. Each count reads the
   * tenant's part of one primary key (users and keys: their tenant's index), no table's rows.
   */
  async holdings(tenantId: string): Promise<TenantHoldings | undefined> {
    if (!isUuid(tenantId)) return undefined;
    const [row] = await queryRows<Record<string, unknown>>(
      this.database.db,
      sql`SELECT (SELECT count(*) FROM ${documents} WHERE tenant_id = t.id) AS documents,
                 (SELECT count(*) FROM ${graphs} WHERE tenant_id = t.id AND kind = 'gb') AS gb_datasets,
                 (SELECT count(*) FROM ${entities} WHERE tenant_id = t.id) AS entities,
                 (SELECT count(*) FROM ${edges} WHERE tenant_id = t.id) AS facts,
                 (SELECT count(*) FROM ${users} WHERE tenant_id = t.id) AS users,
                 (SELECT count(*) FROM ${apiKeys} WHERE tenant_id = t.id AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS live_api_keys
            FROM ${tenants} t WHERE t.id = ${tenantId}`,
    );
    if (!row) return undefined;
    return {
      documents: Number(row.documents),
      gbDatasets: Number(row.gb_datasets),
      entities: Number(row.entities),
      facts: Number(row.facts),
      users: Number(row.users),
      liveApiKeys: Number(row.live_api_keys),
    };
  }

  /**
   * Deletes the tenant and every row of it in every table, in one transaction: all or nothing.
   * False when there is no such tenant. A writer still at work for the tenant (an ingestion job
   * mid-document) cannot leave orphans: every tenant table references the tenant (directly or
   * through its graph or document), so its next insert fails on the foreign key.
   */
  async delete(tenantId: string): Promise<boolean> {
    if (!isUuid(tenantId)) return false;
    return this.database.db.transaction(async (tx) => {
      // Locks the tenant row first: a concurrent suspend or delete of it waits for this one.
      const [found] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId)).for('update');
      if (!found) return false;
      for (const table of TENANT_TABLES_CHILDREN_FIRST) {
        await tx.execute(sql`DELETE FROM ${table} WHERE tenant_id = ${tenantId}`);
      }
      const deleted = await tx.delete(tenants).where(eq(tenants.id, tenantId)).returning({ id: tenants.id });
      return deleted.length === 1;
    });
  }
}
