import { sql, SQL } from 'drizzle-orm';
import { Db, jobs } from '@loci/db';

/** `now() + ms`: lease ends and retry times are on the database's clock, which all workers share. */
export function dbNowPlus(ms: number): SQL {
  return sql`now() + ${Math.round(ms)}::integer * interval '1 millisecond'`;
}

/**
 * Tenants with as many jobs running as their cap (`tenants.max_running_jobs`), computed once per
 * claim (an InitPlan) from the running jobs, a few rows of jobs_running_idx: their queued jobs
 * wait, so a tenant cannot hold every worker. A running job whose lease expired still counts
 * (its worker may be alive) and is handed out again by the `expired` branch, which no cap stops.
 * Exact because claims take CLAIM_LOCK_SQL first (JobQueue.claim).
 */
const TENANTS_AT_RUNNING_CAP = sql`ARRAY(
  SELECT r.tenant_id FROM jobs AS r JOIN tenants AS t ON t.id = r.tenant_id
   WHERE r.status = 'running' AND t.max_running_jobs IS NOT NULL
   GROUP BY r.tenant_id, t.max_running_jobs
  HAVING count(*) >= t.max_running_jobs)`;

/**
 * Claims take turns, one transaction at a time: two claims counting a tenant's running jobs at
 * once would both see it below its cap and both hand it a job. A claim holds the lock for one
 * statement (~0.1 ms at 100k queued jobs), so claims are far fewer than it could serve.
 */
export const CLAIM_LOCK_SQL = sql`SELECT pg_advisory_xact_lock(hashtext('loci.jobs.claim'))`;

/**
 * The one statement that hands out a job. Exported so the contract test can EXPLAIN exactly
 * what runs.
 *
 * Candidates come from two branches, each an ordered scan of its own partial index that stops
 * at the first row it can lock (SKIP LOCKED passes over rows other claimers hold):
 *   - `expired`: a running job whose lease has passed (its worker died or stalled), from
 *     `jobs_running_idx` (lease_expires_at WHERE status = 'running');
 *   - `ready`: the queued job with the lowest turn (fair_tag: the fair queue across tenants,
 *     fair-turn.ts) whose run_at has come, from `jobs_ready_idx` (fair_tag WHERE status =
 *     'queued'); a job waiting for its run_at (a retry's backoff) is passed over as a filter.
 *   - `waiting`: the same for background work (jobs_background_ready_idx), taken only when
 *     no other candidate is there: a bulk load's documents and index builds, the geo backfill.
 * An expired job goes first: it was already being served. One `WHERE a OR b ... ORDER BY` scan
 * would read the whole backlog: Postgres can only combine the two indexes with a BitmapOr,
 * which loses their order and sorts every ready row on every claim (measured: 33 ms with 100k
 * queued jobs, against 0.2 ms for this form; see README.md). The cost of two branches is that
 * both may lock a row, and the one not taken stays locked until this statement commits, so a
 * concurrent claimer may skip it once.
 *
 * The `ready` branch orders by fair_tag alone, the index's own order: a second key would add an
 * incremental sort over each group of equal turns (measured with run_at: 35 ms for a bulk
 * enqueue of 100k jobs sharing one now()). Within a tie the index yields heap order.
 *
 * Status literals are written out (not bound) so the planner can match the partial indexes'
 * predicates under any plan, generic or custom.
 *
 * A candidate whose attempts already reached max_attempts is not handed out: the same UPDATE
 * marks it failed (its last_error says the lease expired), and JobQueue.claim() looks again.
 */
export function claimStatement(db: Db, workerId: string, kinds: readonly string[], leaseMs: number) {
  const kindList = sql.join(
    kinds.map((kind) => sql`${kind}`),
    sql`, `,
  );
  // Raw aliases inside the subquery: a drizzle column there would render as "jobs"."x" and
  // refer to the UPDATE's target row instead of the scanned one.
  const pick = sql`
    SELECT candidate.tenant_id, candidate.id FROM (
      SELECT 0 AS rank, expired.tenant_id, expired.id, expired.fair_tag FROM (
        SELECT j.tenant_id, j.id, j.fair_tag FROM jobs AS j
         WHERE j.status = 'running' AND j.lease_expires_at < now() AND j.kind IN (${kindList})
         ORDER BY j.lease_expires_at
         LIMIT 1 FOR UPDATE SKIP LOCKED
      ) AS expired
      UNION ALL
      SELECT 1 AS rank, ready.tenant_id, ready.id, ready.fair_tag FROM (
        SELECT j.tenant_id, j.id, j.fair_tag FROM jobs AS j
         WHERE j.status = 'queued' AND NOT j.background AND j.run_at <= now() AND j.kind IN (${kindList})
           AND j.tenant_id <> ALL (${TENANTS_AT_RUNNING_CAP})
         ORDER BY j.fair_tag
         LIMIT 1 FOR UPDATE SKIP LOCKED
      ) AS ready
      UNION ALL
      SELECT 2 AS rank, waiting.tenant_id, waiting.id, waiting.fair_tag FROM (
        SELECT j.tenant_id, j.id, j.fair_tag FROM jobs AS j
         WHERE j.status = 'queued' AND j.background AND j.run_at <= now() AND j.kind IN (${kindList})
           AND j.tenant_id <> ALL (${TENANTS_AT_RUNNING_CAP})
         ORDER BY j.fair_tag
         LIMIT 1 FOR UPDATE SKIP LOCKED
      ) AS waiting
    ) AS candidate
    ORDER BY candidate.rank, candidate.fair_tag
    LIMIT 1`;

  // SET expressions read the row as it was before this UPDATE.
  const exhausted = sql`${jobs.attempts} >= ${jobs.maxAttempts}`;
  const leaseExpired = sql`${jobs.status} = 'running'`;
  return db
    .update(jobs)
    .set({
      status: sql`CASE WHEN ${exhausted} THEN 'failed'::job_status ELSE 'running'::job_status END`,
      attempts: sql`CASE WHEN ${exhausted} THEN ${jobs.attempts} ELSE ${jobs.attempts} + 1 END`,
      // An exhausted job keeps the dead worker's name: it says who held the last attempt.
      lockedBy: sql`CASE WHEN ${exhausted} THEN ${jobs.lockedBy} ELSE ${workerId} END`,
      lockedAt: sql`CASE WHEN ${exhausted} THEN ${jobs.lockedAt} ELSE now() END`,
      leaseExpiresAt: sql`CASE WHEN ${exhausted} THEN NULL ELSE ${dbNowPlus(leaseMs)} END`,
      lastError: sql`CASE
        WHEN ${leaseExpired} THEN format('lease expired: worker %s stopped renewing during attempt %s of %s',
                                         ${jobs.lockedBy}, ${jobs.attempts}, ${jobs.maxAttempts})
        WHEN ${exhausted} THEN coalesce(${jobs.lastError}, 'attempts exhausted')
        ELSE ${jobs.lastError} END`,
      updatedAt: sql`now()`,
    })
    .where(sql`(${jobs.tenantId}, ${jobs.id}) = (${pick})`)
    .returning();
}
