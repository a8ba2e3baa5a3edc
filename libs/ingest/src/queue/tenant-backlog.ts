import { Inject, Injectable } from '@nestjs/common';
import { sql, SQL } from 'drizzle-orm';
import { Database, DATABASE, isUuid, queryRows } from '@loci/db';
import { INGEST_DOCUMENT_JOB } from '../pipeline/ingest-job';

/** A tenant's ingestion as operators watch it: its jobs now, and its documents finished in the last hour. */
export interface TenantBacklog {
  /** Queued and due: waiting for a worker. */
  waiting: number;
  /** Queued for later (a retry's backoff). */
  scheduled: number;
  running: number;
  /** Parked: at a cap, or while the tenant is suspended. */
  deferred: number;
  /** How long the tenant's oldest waiting job has been due, in seconds (0 with none). */
  oldestWaitingSeconds: number;
  /** Uploaded documents whose ingestion finished in the last hour, and those that failed for good. */
  processedLastHour: number;
  failedLastHour: number;
}

export const EMPTY_BACKLOG: TenantBacklog = { waiting: 0, scheduled: 0, running: 0, deferred: 0, oldestWaitingSeconds: 0, processedLastHour: 0, failedLastHour: 0 };

/**
 * Several tenants' backlogs in one statement (the operators' tenant list reads a page at a time).
 * Four arms, each through its partial index (done jobs are kept: a scan of a tenant's jobs reads
 * every job it ever had): the queued ones (jobs_tenant_queued_idx), the running ones
 * (jobs_running_idx), the parked ones (jobs_tenant_deferred_idx) and the last hour's finished ones
 * (jobs_tenant_finished_idx).
 */
@Injectable()
export class TenantBacklogs {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** Each tenant's backlog; a tenant with no job in any of the four states is absent. */
  async of(tenantIds: string[]): Promise<Map<string, TenantBacklog>> {
    const result = new Map<string, TenantBacklog>();
    const ids = tenantIds.filter(isUuid);
    if (ids.length === 0) return result;
    const rows = await queryRows<Record<string, unknown>>(this.database.db, this.statement(ids));
    for (const row of rows) {
      result.set(String(row.tenant_id), {
        waiting: Number(row.waiting),
        scheduled: Number(row.scheduled),
        running: Number(row.running),
        deferred: Number(row.deferred),
        oldestWaitingSeconds: Math.max(0, Math.round(Number(row.oldest ?? 0))),
        processedLastHour: Number(row.processed),
        failedLastHour: Number(row.failed),
      });
    }
    return result;
  }

  /** The statement itself, for EXPLAIN. */
  statement(tenantIds: string[]): SQL {
    const ids = sql.join(
      tenantIds.map((id) => sql`${id}::uuid`),
      sql`, `,
    );
    const arm = (state: SQL) => sql`SELECT tenant_id, status, run_at, kind FROM jobs WHERE tenant_id IN (${ids}) AND ${state}`;
    return sql`
      SELECT tenant_id::text AS tenant_id,
             count(*) FILTER (WHERE status = 'queued' AND run_at <= now()) AS waiting,
             count(*) FILTER (WHERE status = 'queued' AND run_at > now()) AS scheduled,
             count(*) FILTER (WHERE status = 'running') AS running,
             count(*) FILTER (WHERE status = 'deferred') AS deferred,
             extract(epoch FROM now() - min(run_at) FILTER (WHERE status = 'queued' AND run_at <= now())) AS oldest,
             count(*) FILTER (WHERE status = 'done' AND kind = ${INGEST_DOCUMENT_JOB}) AS processed,
             count(*) FILTER (WHERE status = 'failed' AND kind = ${INGEST_DOCUMENT_JOB}) AS failed
        FROM (${arm(sql`status = 'queued'`)}
              UNION ALL ${arm(sql`status = 'running'`)}
              UNION ALL ${arm(sql`status = 'deferred'`)}
              UNION ALL ${arm(sql`status IN ('done', 'failed') AND updated_at >= now() - interval '1 hour'`)}) AS j
       GROUP BY tenant_id`;
  }
}
