import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql, SQL } from 'drizzle-orm';
import { Database, DATABASE, Db, isUuid, JobRow, jobs, queryRows, tenants } from '@loci/db';
import { CLAIM_LOCK_SQL, claimStatement, dbNowPlus } from './claim-statement';
import { nextTurnFor } from './fair-turn';
import { describeError } from './job-errors';

/** The queue's backlog, for the metrics scrape. */
export interface QueueDepth {
  /** Queued and due: waiting for a worker. */
  ready: number;
  /** Queued for later (a retry's backoff). */
  scheduled: number;
  running: number;
  /** How long the oldest ready job has been due, in seconds (0 with none). */
  oldestReadySeconds: number;
}

/** A job as claimed: its `lockedBy` and `attempts` are the lease a worker holds. */
export type Job = JobRow;

export interface EnqueueOptions {
  /** Not claimed before this time (default: now). */
  runAt?: Date;
  /** Claims allowed in all, counting the first (default: the column's default, 5). */
  maxAttempts?: number;
  /** Enqueue inside the caller's transaction, so the job commits (or not) with its data. */
  db?: Db;
  /** Background work (a bulk load's, the geo backfill): claimed only when no other job is ready. */
  background?: boolean;
}

export interface FailOptions {
  /** Retry at this time. */
  retryAt?: Date;
  /** Retry this long after now, on the database's clock (what the runner's backoff uses). */
  retryInMs?: number;
  /**
   * The failure was not the job's (a transient conflict): give the attempt back and retry
   * (a retry time is needed), even when it was the last attempt.
   */
  refundAttempt?: boolean;
}

export interface DeferOptions {
  /** Once resumed, the job is still not claimed before this time. */
  until?: Date;
  /** Why, kept in last_error (e.g. `cost cap reached`). */
  reason: string;
}

/**
 * How many jobs one claim() call may set aside (exhausted ones marked failed, a suspended
 * tenant's parked) before it answers null; any more are found on the next poll. Bounds the
 * call, nothing else.
 */
const MAX_EXHAUSTED_PER_CLAIM = 16;

/** Why a suspended tenant's jobs are parked (last_error says `deferred: tenant suspended`). */
export const TENANT_SUSPENDED_REASON = 'tenant suspended';

/**
 * The durable job queue on the `jobs` table (see README.md for the guarantees).
 *
 * Every method that changes a claimed job acts only while the caller still holds it: status
 * running, locked_by its worker and attempts the count it claimed. `attempts` grows on every
 * claim, so it fences leases: a worker whose lease expired and was re-claimed (even by the
 * same worker id) cannot overwrite the new holder's result; its call answers false.
 */
@Injectable()
export class JobQueue {
  private readonly wakeListeners = new Set<() => void>();

  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Wakes the runners in this process that consume this queue, so a job enqueued here starts
   * without waiting for a poll. Call it after the enqueue has committed (a runner woken before
   * cannot see the job yet). Runners in other processes find it on their next poll.
   */
  notify(): void {
    for (const listener of this.wakeListeners) listener();
  }

  /** Subscribes to notify(); answers the unsubscribe function. JobRunner uses it while started. */
  onNotify(listener: () => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  /** Adds a job; answers its id. */
  async enqueue(tenantId: string, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number> {
    if (!kind) throw new Error('a job needs a kind');
    if (options.maxAttempts !== undefined && !(Number.isInteger(options.maxAttempts) && options.maxAttempts >= 1)) {
      throw new Error(`maxAttempts must be a positive integer, got ${options.maxAttempts}`);
    }
    const [row] = await (options.db ?? this.database.db)
      .insert(jobs)
      .values({
        tenantId,
        kind,
        payload: payload ?? {},
        ...(options.runAt ? { runAt: options.runAt } : {}),
        ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
        background: options.background ?? false,
        fairTag: nextTurnFor(tenantId, options.background ?? false),
      })
      .returning({ id: jobs.id });
    return row.id;
  }

  /**
   * Hands the oldest ready job of one of `kinds` to `workerId` for `leaseMs`, or null. Ready:
   * queued with run_at passed, or running with its lease expired (the worker died). A job
   * whose last allowed attempt expired is marked failed instead (see claimStatement). A job
   * of a suspended tenant is never handed out: it is parked (deferred, its attempt given back)
   * until the tenant is resumed, and the claim looks again.
   */
  async claim(workerId: string, kinds: readonly string[], leaseMs: number): Promise<Job | null> {
    if (!workerId) throw new Error('a claim needs a worker id');
    assertPositiveMs('leaseMs', leaseMs);
    if (kinds.length === 0) return null;
    for (let i = 0; i < MAX_EXHAUSTED_PER_CLAIM; i++) {
      const [row] = await this.database.db.transaction(async (tx) => {
        await tx.execute(CLAIM_LOCK_SQL);
        return claimStatement(tx, workerId, kinds, leaseMs);
      });
      if (!row) return null;
      if (row.status !== 'running') continue;
      // Suspension parks the tenant's queued jobs (pauseTenant); this catches those queued or
      // retried since, one PK read per claim rather than a join in the claim statement's plan.
      if (!(await this.tenantSuspended(row.tenantId))) return row;
      await this.defer(row, { reason: TENANT_SUSPENDED_REASON });
    }
    return null;
  }

  /**
   * Parks every queued job of a tenant (its suspension): none is claimed until resumeDeferred
   * queues them again once the tenant is resumed. A running job finishes its attempt. Answers
   * how many were parked.
   */
  async pauseTenant(tenantId: string, options: { db?: Db } = {}): Promise<number> {
    if (!isUuid(tenantId)) return 0;
    const rows = await (options.db ?? this.database.db)
      .update(jobs)
      .set({ status: 'deferred', lastError: `deferred: ${TENANT_SUSPENDED_REASON}`, updatedAt: sql`now()` })
      .where(and(eq(jobs.tenantId, tenantId), sql`${jobs.status} = 'queued'`))
      .returning({ id: jobs.id });
    return rows.length;
  }

  /**
   * The backlog of every tenant and kind, read on each metrics scrape: one statement over the
   * rows of the two partial indexes (queued, running), never the finished jobs.
   */
  async depth(): Promise<QueueDepth> {
    const [row] = await queryRows<{ ready: string; scheduled: string; running: string; oldest: string | null }>(
      this.database.db,
      sql`SELECT count(*) FILTER (WHERE ${jobs.status} = 'queued' AND ${jobs.runAt} <= now()) AS ready,
                 count(*) FILTER (WHERE ${jobs.status} = 'queued' AND ${jobs.runAt} > now()) AS scheduled,
                 count(*) FILTER (WHERE ${jobs.status} = 'running') AS running,
                 extract(epoch FROM now() - min(${jobs.runAt}) FILTER (WHERE ${jobs.status} = 'queued' AND ${jobs.runAt} <= now())) AS oldest
            FROM ${jobs}
           WHERE ${jobs.status} IN ('queued', 'running')`,
    );
    return { ready: Number(row.ready), scheduled: Number(row.scheduled), running: Number(row.running), oldestReadySeconds: Math.max(0, Number(row.oldest ?? 0)) };
  }

  /** Extends the lease to now + leaseMs; false when the lease is lost (the handler should stop). */
  async heartbeat(job: Job, leaseMs: number): Promise<boolean> {
    assertPositiveMs('leaseMs', leaseMs);
    return this.updateHeld(job, { leaseExpiresAt: dbNowPlus(leaseMs) });
  }

  /** Marks the job done; false when the lease was lost (the result belongs to the new holder). */
  async complete(job: Job): Promise<boolean> {
    return this.updateHeld(job, { status: 'done', leaseExpiresAt: null });
  }

  /**
   * Records a failure. With a retry time and attempts left (or the attempt refunded), the job
   * goes back to the queue for then; otherwise it is failed for good. The error text is kept in last_error either way.
   * False when the lease was lost.
   */
  async fail(job: Job, error: unknown, options: FailOptions = {}): Promise<boolean> {
    const lastError = describeError(error);
    const retryAt = options.retryInMs !== undefined ? dbNowPlus(options.retryInMs) : options.retryAt;
    // A retry takes a new turn, behind its tenant's backlog: a failing job does not go first again.
    if (retryAt && options.refundAttempt) {
      return this.updateHeld(job, {
        status: 'queued',
        runAt: retryAt,
        lastError,
        attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
        fairTag: nextTurnFor(job.tenantId, job.background),
        ...NO_HOLDER,
      });
    }
    if (retryAt && job.attempts < job.maxAttempts) {
      return this.updateHeld(job, { status: 'queued', runAt: retryAt, lastError, fairTag: nextTurnFor(job.tenantId, job.background), ...NO_HOLDER });
    }
    return this.updateHeld(job, { status: 'failed', lastError, leaseExpiresAt: null });
  }

  /**
   * Parks the job: it is not claimed again until resume() or resumeDeferred() queues it, and
   * then not before `until`. A deferral is not a failure, so it gives the attempt back. False
   * when the lease was lost.
   */
  async defer(job: Job, options: DeferOptions): Promise<boolean> {
    return this.updateHeld(job, {
      status: 'deferred',
      attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
      lastError: `deferred: ${options.reason}`,
      ...(options.until ? { runAt: options.until } : {}),
      ...NO_HOLDER,
    });
  }

  /**
   * Puts a job back in the queue untouched, giving its attempt back: the runner does this
   * when it is stopped mid-job, so a deploy does not cost a job one of its attempts.
   */
  async release(job: Job): Promise<boolean> {
    return this.updateHeld(job, {
      status: 'queued',
      attempts: sql`greatest(${jobs.attempts} - 1, 0)`,
      ...NO_HOLDER,
    });
  }

  /** Queues one deferred job again; false when it is not deferred (or not there). */
  async resume(tenantId: string, jobId: number): Promise<boolean> {
    if (!isUuid(tenantId)) return false;
    const rows = await this.database.db
      .update(jobs)
      .set({ status: 'queued', fairTag: nextTurnFor(tenantId, sql`${jobs.background}`), updatedAt: sql`now()` })
      .where(and(eq(jobs.tenantId, tenantId), eq(jobs.id, jobId), sql`${jobs.status} = 'deferred'`))
      .returning({ id: jobs.id });
    return rows.length === 1;
  }

  /** Queues every deferred job of a tenant, or of all tenants, except suspended tenants'; answers how many. */
  async resumeDeferred(tenantId?: string): Promise<number> {
    if (tenantId !== undefined && !isUuid(tenantId)) return 0;
    // Each tenant's resumed jobs take turns after its last queued one (and the queue's first),
    // one a job in their order: a tenant's thousand jobs parked at a cap go back behind the
    // others' turns, not before them, and tenants resumed together alternate.
    const rows = await queryRows<{ id: number }>(
      this.database.db,
      sql`UPDATE ${jobs} SET status = 'queued', fair_tag = resumed.base + resumed.nth, updated_at = now()
            FROM (SELECT d.tenant_id, d.id, ${nextTurnFor(sql`d.tenant_id`, sql`d.background`)} AS base,
                         row_number() OVER (PARTITION BY d.tenant_id, d.background ORDER BY d.id) - 1 AS nth
                    FROM jobs AS d
                   WHERE d.status = 'deferred' ${tenantId === undefined ? sql`` : sql`AND d.tenant_id = ${tenantId}`}
                     AND NOT EXISTS (SELECT 1 FROM ${tenants} WHERE ${tenants.id} = d.tenant_id AND ${tenants.suspendedAt} IS NOT NULL)
                 ) AS resumed
           WHERE ${jobs.tenantId} = resumed.tenant_id AND ${jobs.id} = resumed.id AND ${jobs.status} = 'deferred'
       RETURNING ${jobs.id} AS id`,
    );
    return rows.length;
  }

  async get(tenantId: string, jobId: number): Promise<Job | undefined> {
    if (!isUuid(tenantId)) return undefined;
    const [row] = await this.database.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.tenantId, tenantId), eq(jobs.id, jobId)));
    return row;
  }

  /**
   * The jobs whose payload names the document (`documentId`: one for its upload, one for each retry),
   * oldest first; through jobs_document_idx.
   */
  async ofDocument(tenantId: string, documentId: number): Promise<Job[]> {
    if (!isUuid(tenantId)) return [];
    return this.database.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.tenantId, tenantId), sql`(${jobs.payload}->>'documentId') = ${String(documentId)}`))
      .orderBy(jobs.createdAt, jobs.id);
  }

  private async tenantSuspended(tenantId: string): Promise<boolean> {
    const [row] = await this.database.db
      .select({ suspendedAt: tenants.suspendedAt })
      .from(tenants)
      .where(eq(tenants.id, tenantId));
    return Boolean(row?.suspendedAt);
  }

  private async updateHeld(job: Job, changes: HeldJobChanges): Promise<boolean> {
    if (!job.lockedBy) return false;
    const rows = await this.database.db
      .update(jobs)
      .set({ ...changes, updatedAt: sql`now()` })
      .where(
        and(
          eq(jobs.tenantId, job.tenantId),
          eq(jobs.id, job.id),
          sql`${jobs.status} = 'running'`,
          eq(jobs.lockedBy, job.lockedBy),
          eq(jobs.attempts, job.attempts),
        ),
      )
      .returning({ id: jobs.id });
    return rows.length === 1;
  }
}

type HeldJobChanges = {
  status?: 'queued' | 'done' | 'failed' | 'deferred';
  attempts?: SQL;
  fairTag?: SQL;
  runAt?: Date | SQL;
  lastError?: string;
  lockedBy?: null;
  lockedAt?: null;
  leaseExpiresAt?: SQL | null;
};

/** A job back in the queue (or parked) has no holder. */
const NO_HOLDER = { lockedBy: null, lockedAt: null, leaseExpiresAt: null } as const;

function assertPositiveMs(name: string, value: number): void {
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name} must be a positive number of milliseconds, got ${value}`);
}
