import { Inject, Injectable } from '@nestjs/common';
import { sql, SQL } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '../database';

/** A UTC window [from, to). */
export interface SpendWindow {
  from: Date;
  to: Date;
}

/**
 * What a row counts for in a spend window: a completed call (ok or error) its actual cost, a
 * `pending` one (in flight, or left behind by a process that died mid-call) its worst case.
 */
const ROW_SPEND = sql`CASE WHEN status = 'pending' THEN estimated_cost_micros ELSE cost_micros END`;

/**
 * Spend read from the inference ledger (the rows that count against caps: `spend_limited`),
 * the truth the limit counters are a cache of (rebuilt
 * from here after a Redis flush/restart; compared with the counters at enforcement).
 *
 * Each read is one statement over one index (EXPLAIN in test/e2e/spend-faults.e2e-spec.ts):
 * - tenant day + month together: `inferences_tenant_created_idx` (tenant_id, created_at) bounded
 *   by the month, the day summed with a FILTER over the same rows;
 * - platform day: the partial `inferences_platform_created_idx` (created_at) WHERE billed_to =
 *   'platform' — the predicate is written exactly as the index's so the planner can use it.
 * Cost grows with the rows of the window (a tenant's month, the platform's day); callers cache.
 */
@Injectable()
export class SpendLedgerRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** The tenant's spend in the day window and in the month window (which must contain the day). */
  async tenantSpend(tenantId: string, day: SpendWindow, month: SpendWindow): Promise<{ dayMicros: number; monthMicros: number }> {
    const [row] = await queryRows<{ day: unknown; month: unknown }>(this.database.db, this.tenantSpendQuery(tenantId, day, month));
    return { dayMicros: toMicros(row?.day), monthMicros: toMicros(row?.month) };
  }

  /**
   * Several tenants' day and month spend in one statement (the operators' tenant list): the same
   * sums as `tenantSpend`, grouped by tenant over the same index; a tenant with no row is absent.
   */
  async tenantsSpend(tenantIds: string[], day: SpendWindow, month: SpendWindow): Promise<Map<string, { dayMicros: number; monthMicros: number }>> {
    const spent = new Map<string, { dayMicros: number; monthMicros: number }>();
    if (tenantIds.length === 0) return spent;
    const rows = await queryRows<{ tenant_id: string; day: unknown; month: unknown }>(this.database.db, this.tenantsSpendQuery(tenantIds, day, month));
    for (const row of rows) spent.set(row.tenant_id, { dayMicros: toMicros(row.day), monthMicros: toMicros(row.month) });
    return spent;
  }

  /** The platform's spend in the window over platform-billed rows (every tenant). */
  async platformSpend(window: SpendWindow): Promise<number> {
    const [row] = await queryRows<{ spent: unknown }>(this.database.db, this.platformSpendQuery(window));
    return toMicros(row?.spent);
  }

  /** The statements themselves, for EXPLAIN. */
  tenantSpendQuery(tenantId: string, day: SpendWindow, month: SpendWindow): SQL {
    return sql`
      SELECT
        COALESCE(SUM(${ROW_SPEND}) FILTER (WHERE created_at >= ${iso(day.from)}::timestamptz AND created_at < ${iso(day.to)}::timestamptz), 0)::text AS day,
        COALESCE(SUM(${ROW_SPEND}), 0)::text AS month
      FROM inferences
      WHERE tenant_id = ${tenantId}::uuid AND spend_limited
        AND created_at >= ${iso(month.from)}::timestamptz AND created_at < ${iso(month.to)}::timestamptz`;
  }

  tenantsSpendQuery(tenantIds: string[], day: SpendWindow, month: SpendWindow): SQL {
    const ids = sql.join(
      tenantIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    return sql`
      SELECT
        tenant_id::text AS tenant_id,
        COALESCE(SUM(${ROW_SPEND}) FILTER (WHERE created_at >= ${iso(day.from)}::timestamptz AND created_at < ${iso(day.to)}::timestamptz), 0)::text AS day,
        COALESCE(SUM(${ROW_SPEND}), 0)::text AS month
      FROM inferences
      WHERE tenant_id IN (${ids}) AND spend_limited
        AND created_at >= ${iso(month.from)}::timestamptz AND created_at < ${iso(month.to)}::timestamptz
      GROUP BY tenant_id`;
  }

  platformSpendQuery(window: SpendWindow): SQL {
    return sql`
      SELECT COALESCE(SUM(${ROW_SPEND}), 0)::text AS spent
      FROM inferences
      WHERE billed_to = 'platform' AND spend_limited
        AND created_at >= ${iso(window.from)}::timestamptz AND created_at < ${iso(window.to)}::timestamptz`;
  }
}

const iso = (d: Date) => d.toISOString();

// SUM over bigint is numeric; it is read as text so no driver turns it into a float.
function toMicros(value: unknown): number {
  const micros = Number(value ?? 0);
  if (!Number.isSafeInteger(micros)) throw new RangeError(`ledger spend is not a safe integer of micro-dollars: ${String(value)}`);
  return micros;
}
