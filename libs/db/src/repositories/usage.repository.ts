import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '../database';

export interface UsageDay {
  tenantId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  questions: number;
  modelCalls: number;
  tokensIn: number;
  tokensOut: number;
  costPlatformMicros: number;
  costOwnKeyMicros: number;
}

/**
 * Usage read from the inference ledger and the request log (the truth), per tenant per UTC
 * day. Calls still pending count at their estimated (worst-case) cost.
 */
@Injectable()
export class UsageRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async byTenantDay(range: { from: Date; to: Date; tenantId?: string }): Promise<UsageDay[]> {
    const tenantFilter = (column: string) => (range.tenantId ? sql`AND ${sql.raw(column)} = ${range.tenantId}` : sql``);
    const rows = await queryRows<Record<string, string | number>>(
      this.database.db,
      sql`WITH calls AS (
            SELECT tenant_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                   count(*)::int AS model_calls,
                   coalesce(sum(tokens_in), 0)::bigint AS tokens_in,
                   coalesce(sum(tokens_out), 0)::bigint AS tokens_out,
                   coalesce(sum(CASE WHEN status = 'pending' THEN estimated_cost_micros ELSE cost_micros END)
                            FILTER (WHERE billed_to = 'platform'), 0)::bigint AS cost_platform,
                   coalesce(sum(CASE WHEN status = 'pending' THEN estimated_cost_micros ELSE cost_micros END)
                            FILTER (WHERE billed_to = 'own_key'), 0)::bigint AS cost_own_key
            FROM inferences
            WHERE created_at >= ${range.from} AND created_at < ${range.to} ${tenantFilter('inferences.tenant_id')}
            GROUP BY 1, 2
          ), questions AS (
            SELECT tenant_id, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS questions
            FROM request_logs
            WHERE created_at >= ${range.from} AND created_at < ${range.to} ${tenantFilter('request_logs.tenant_id')}
            GROUP BY 1, 2
          )
          SELECT coalesce(c.tenant_id, q.tenant_id) AS tenant_id, coalesce(c.day, q.day) AS day,
                 coalesce(q.questions, 0) AS questions, coalesce(c.model_calls, 0) AS model_calls,
                 coalesce(c.tokens_in, 0) AS tokens_in, coalesce(c.tokens_out, 0) AS tokens_out,
                 coalesce(c.cost_platform, 0) AS cost_platform, coalesce(c.cost_own_key, 0) AS cost_own_key
          FROM calls c FULL OUTER JOIN questions q ON q.tenant_id = c.tenant_id AND q.day = c.day
          ORDER BY 2, 1`,
    );
    return rows.map((r) => ({
      tenantId: String(r.tenant_id),
      day: String(r.day),
      questions: Number(r.questions),
      modelCalls: Number(r.model_calls),
      tokensIn: Number(r.tokens_in),
      tokensOut: Number(r.tokens_out),
      costPlatformMicros: Number(r.cost_platform),
      costOwnKeyMicros: Number(r.cost_own_key),
    }));
  }

  /** A tenant's spend (all billing) since `since`, in micro-dollars, pending calls at their estimate. */
  async tenantSpendSince(tenantId: string, since: Date): Promise<number> {
    const [row] = await queryRows<{ spent: string | number }>(
      this.database.db,
      sql`SELECT coalesce(sum(CASE WHEN status = 'pending' THEN estimated_cost_micros ELSE cost_micros END), 0)::bigint AS spent
          FROM inferences WHERE tenant_id = ${tenantId} AND created_at >= ${since}`,
    );
    return Number(row?.spent ?? 0);
  }
}
