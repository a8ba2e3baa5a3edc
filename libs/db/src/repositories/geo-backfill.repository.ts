import { Inject, Injectable } from '@nestjs/common';
import { eq, sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from '../database';
import { geoBackfillProgress } from '../schema';

/** An entity as the geo backfill reads it: what the gazetteer needs, no vectors. */
export interface EntityToLocate {
  id: number;
  graphId: number;
  name: string;
  normalizedName: string;
  type: string | null;
  located: boolean;
}

/**
 * The store's side of the geo backfill (issue 40.9; docs/decisions/0042-geo-backfill.md, "Geo for what was
 * remembered before geo was on"): which tenants have entities it has not tried yet, a tenant's
 * entities a page at a time in id order (its primary key), and how far it has gone.
 */
@Injectable()
export class GeoBackfillRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Tenants with an entity past their progress, not suspended (a suspended tenant's jobs are
   * parked; it is looked at again on the next start after its resumption), and with no job of
   * `jobKind` queued or running (the status literals are written out so the jobs' partial
   * indexes serve the two scans; done jobs are never read). One probe of the entities' primary
   * key a tenant.
   */
  async tenantsBehind(jobKind: string, db: Db = this.database.db): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`WITH open_jobs AS (
            SELECT j.tenant_id FROM jobs j WHERE j.status = 'queued' AND j.kind = ${jobKind}
            UNION
            SELECT j.tenant_id FROM jobs j WHERE j.status = 'running' AND j.kind = ${jobKind})
          SELECT t.id FROM tenants t
          LEFT JOIN geo_backfill_progress p ON p.tenant_id = t.id
          WHERE t.suspended_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM open_jobs o WHERE o.tenant_id = t.id)
            AND EXISTS (SELECT 1 FROM entities e WHERE e.tenant_id = t.id AND e.id > coalesce(p.last_entity_id, 0))
          ORDER BY t.id`,
    );
    return rows.map((row) => row.id);
  }

  /** Processes queueing backfill jobs take turns, so two starting together do not both queue one for a tenant. */
  async serializeQueueing(tx: Db): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('loci.geo-backfill.queue'))`);
  }

  /** The id up to which every entity of the tenant was tried (0: none yet). */
  async progress(tenantId: string, db: Db = this.database.db): Promise<number> {
    const [row] = await db
      .select({ lastEntityId: geoBackfillProgress.lastEntityId })
      .from(geoBackfillProgress)
      .where(eq(geoBackfillProgress.tenantId, tenantId));
    return row?.lastEntityId ?? 0;
  }

  /** The tenant's next `limit` entities after `afterId`, in id order (all graphs, places or not). */
  async entitiesAfter(db: Db, tenantId: string, afterId: number, limit: number): Promise<EntityToLocate[]> {
    const rows = await queryRows<{ id: unknown; graph_id: unknown; name: string; normalized_name: string; type: string | null; located: boolean }>(
      db,
      sql`SELECT id, graph_id, name, normalized_name, type, latitude IS NOT NULL AS located FROM entities
          WHERE tenant_id = ${tenantId} AND id > ${afterId}
          ORDER BY id
          LIMIT ${limit}`,
    );
    // node-postgres gives bigints as strings.
    return rows.map((r) => ({ id: Number(r.id), graphId: Number(r.graph_id), name: r.name, normalizedName: r.normalized_name, type: r.type, located: r.located }));
  }

  /** Every entity of the tenant up to `lastEntityId` was tried; progress never goes back. */
  async recordProgress(db: Db, tenantId: string, lastEntityId: number): Promise<void> {
    await db
      .insert(geoBackfillProgress)
      .values({ tenantId, lastEntityId })
      .onConflictDoUpdate({
        target: geoBackfillProgress.tenantId,
        set: { lastEntityId: sql`greatest(${geoBackfillProgress.lastEntityId}, excluded.last_entity_id)`, updatedAt: sql`now()` },
      });
  }
}
