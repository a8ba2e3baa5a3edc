import { Inject, Injectable, Optional } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { ReadRouter } from '../replicas/read-router';

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
  /** Requests refused by a spend limit, by refusal kind (`cost_cap_exceeded`, …). */
  refusals: Record<string, number>;
  /** Documents (uploads and gb remembers) taken in, and the bytes of their text (ingestion_days). */
  documents: number;
  textBytes: number;
}

/**
 * Usage read from the inference ledger, the request log (the truth), the refusal counters and
 * the ingestion counts, per tenant per UTC day. Calls still pending count at their estimated
 * (worst-case) cost.
 *
 * On a streaming replica when DATABASE_READ_URL names one (ReadRouter), else the primary; either
 * way a report holds every row committed before it was asked for.
 */
@Injectable()
export class UsageRepository {
  private readonly reads: ReadRouter;

  constructor(@Inject(DATABASE) database: Database, @Optional() reads?: ReadRouter) {
    this.reads = reads ?? new ReadRouter(database);
  }

  /**
   * Every tenant's usage, or one's (`tenantId`). With replicas, the primary's position is noted
   * first (one short statement) and the report read from a replica that has replayed it, after a
   * wait of at most LOCI_REPLICA_MAX_WAIT_MS, else from the primary: the refusal counts the
   * caller flushed just before, and the questions and model calls of the client's requests that
   * finished before this one, are in it.
   */
  async byTenantDay(range: { from: Date; to: Date; tenantId?: string }): Promise<UsageDay[]> {
    const scope = { tenantId: range.tenantId ?? null };
    await this.reads.noteWrite(scope);
    const tenantFilter = (column: string) => (range.tenantId ? sql`AND ${sql.raw(column)} = ${range.tenantId}` : sql``);
    const rows = await this.reads.rows<Record<string, unknown>>(
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
          ), refusals AS (
            SELECT tenant_id, to_char(day, 'YYYY-MM-DD') AS day, jsonb_object_agg(kind, count) AS by_kind
            FROM limit_refusals
            WHERE day >= (${range.from}::timestamptz AT TIME ZONE 'UTC')::date
              AND day < (${range.to}::timestamptz AT TIME ZONE 'UTC')::date ${tenantFilter('limit_refusals.tenant_id')}
            GROUP BY 1, 2
          ), ingested AS (
            SELECT tenant_id, to_char(day, 'YYYY-MM-DD') AS day, documents, text_bytes
            FROM ingestion_days
            WHERE day >= (${range.from}::timestamptz AT TIME ZONE 'UTC')::date
              AND day < (${range.to}::timestamptz AT TIME ZONE 'UTC')::date ${tenantFilter('ingestion_days.tenant_id')}
          ), days AS (
            SELECT tenant_id, day FROM calls UNION SELECT tenant_id, day FROM questions UNION SELECT tenant_id, day FROM refusals
            UNION SELECT tenant_id, day FROM ingested
          )
          SELECT d.tenant_id, d.day,
                 coalesce(q.questions, 0) AS questions, coalesce(c.model_calls, 0) AS model_calls,
                 coalesce(c.tokens_in, 0) AS tokens_in, coalesce(c.tokens_out, 0) AS tokens_out,
                 coalesce(c.cost_platform, 0) AS cost_platform, coalesce(c.cost_own_key, 0) AS cost_own_key,
                 coalesce(r.by_kind, '{}'::jsonb) AS refusals,
                 coalesce(i.documents, 0) AS documents, coalesce(i.text_bytes, 0) AS text_bytes
          FROM days d
          LEFT JOIN calls c ON c.tenant_id = d.tenant_id AND c.day = d.day
          LEFT JOIN questions q ON q.tenant_id = d.tenant_id AND q.day = d.day
          LEFT JOIN refusals r ON r.tenant_id = d.tenant_id AND r.day = d.day
          LEFT JOIN ingested i ON i.tenant_id = d.tenant_id AND i.day = d.day
          ORDER BY 2, 1`,
      scope,
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
      refusals: countsOf(r.refusals),
      documents: Number(r.documents),
      textBytes: Number(r.text_bytes),
    }));
  }
}

/** jsonb arrives parsed from pg, as text from some drivers. */
function countsOf(value: unknown): Record<string, number> {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Object.fromEntries(Object.entries((parsed ?? {}) as Record<string, unknown>).map(([k, v]) => [k, Number(v)]));
}
