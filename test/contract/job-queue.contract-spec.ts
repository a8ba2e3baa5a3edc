import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { Database, findMigrationsFolder, jobs, openDatabase, PostgresDatabase, queryRows, tenants } from '@loci/db';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';
import {
  claimStatement,
  Job,
  JobQueue,
  JobRunner,
  JobRunnerLogger,
  JobRunnerOptions,
  LeaseLostError,
  nextTurnFor,
  NonRetryableJobError,
  TransientJobError,
} from '../../libs/ingest/src/queue';

/**
 * The job queue's contract, on whichever store the environment selects (DATABASE_URL →
 * PostgreSQL, otherwise PGlite). Every test uses its own job kind, so tests sharing the
 * database never claim each other's jobs.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const LONG_LEASE = 30_000;
/** Short enough to keep the suite quick, long enough that a loaded machine does not expire it by accident. */
const SHORT_LEASE = 200;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const uniqueKind = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;

async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

function recordingLogger() {
  const lines: { level: 'log' | 'warn' | 'error'; message: string }[] = [];
  const logger: JobRunnerLogger = {
    log: (message) => lines.push({ level: 'log', message }),
    warn: (message) => lines.push({ level: 'warn', message }),
    error: (message) => lines.push({ level: 'error', message }),
  };
  return { logger, lines };
}

describe(`job queue contract (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;
  let queue: JobQueue;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
    queue = new JobQueue(database);
  });

  afterEach(async () => {
    await Promise.all(runners.splice(0).map((runner) => runner.stop({ graceMs: 0 })));
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  async function createTenant(): Promise<string> {
    const [tenant] = await database.db.insert(tenants).values({ name: 'job queue tenant' }).returning({ id: tenants.id });
    return tenant.id;
  }

  function newRunner(options: JobRunnerOptions = {}, on: JobQueue = queue): JobRunner {
    const runner = new JobRunner(on, { backoff: { baseMs: 5, maxMs: 20 }, ...options });
    runners.push(runner);
    return runner;
  }

  async function statusOf(tenantId: string, jobId: number) {
    return (await queue.get(tenantId, jobId))?.status;
  }

  describe('queue', () => {
    it('enqueues, claims and completes a job, all on one tenant row', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('basic');
      const id = await queue.enqueue(tenantId, kind, { document: 7 });

      const queued = await queue.get(tenantId, id);
      expect(queued).toMatchObject({ tenantId, id, kind, status: 'queued', attempts: 0, maxAttempts: 5, payload: { document: 7 } });
      expect(queued?.lockedBy).toBeNull();

      const job = await queue.claim('worker-a', [kind], 1_000);
      expect(job).toMatchObject({ tenantId, id, status: 'running', attempts: 1, lockedBy: 'worker-a', payload: { document: 7 } });
      // Both times come from the same now(), so the lease is exactly as long as asked.
      expect(job!.leaseExpiresAt!.getTime() - job!.lockedAt!.getTime()).toBe(1_000);
      await expect(queue.claim('worker-b', [kind], 1_000)).resolves.toBeNull();

      await expect(queue.complete(job!)).resolves.toBe(true);
      expect(await queue.get(tenantId, id)).toMatchObject({ status: 'done', attempts: 1, leaseExpiresAt: null });
      await expect(queue.claim('worker-a', [kind], 1_000)).resolves.toBeNull();
      // A second complete is refused: the job is no longer running.
      await expect(queue.complete(job!)).resolves.toBe(false);
    });

    it('claims only the kinds asked for, and nothing for no kinds', async () => {
      const tenantId = await createTenant();
      const [wanted, other] = [uniqueKind('wanted'), uniqueKind('other')];
      await queue.enqueue(tenantId, other, {});
      const id = await queue.enqueue(tenantId, wanted, {});
      await expect(queue.claim('w', [], LONG_LEASE)).resolves.toBeNull();
      expect((await queue.claim('w', [wanted], LONG_LEASE))?.id).toBe(id);
      await expect(queue.claim('w', [wanted], LONG_LEASE)).resolves.toBeNull();
    });

    it('keeps tenant_id on every job and never answers one tenant with another tenant’s job', async () => {
      const [first, second] = [await createTenant(), await createTenant()];
      const kind = uniqueKind('tenants');
      const firstJob = await queue.enqueue(first, kind, { n: 1 });
      const secondJob = await queue.enqueue(second, kind, { n: 2 });

      const claimed = [await queue.claim('w', [kind], LONG_LEASE), await queue.claim('w', [kind], LONG_LEASE)];
      expect(claimed.map((job) => [job?.tenantId, job?.id])).toEqual(
        expect.arrayContaining([
          [first, firstJob],
          [second, secondJob],
        ]),
      );
      // Ids are per table, so the same id under another tenant names nothing.
      await expect(queue.get(second, firstJob)).resolves.toBeUndefined();
      await expect(queue.resume(second, firstJob)).resolves.toBe(false);
      await expect(queue.get('not-a-uuid', firstJob)).resolves.toBeUndefined();

      const rows = await database.db.select({ tenantId: jobs.tenantId }).from(jobs).where(eq(jobs.kind, kind));
      expect(rows.map((row) => row.tenantId).sort()).toEqual([first, second].sort());
    });

    it('enqueues inside the caller’s transaction: the job commits or rolls back with it', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('tx');
      await expect(
        database.db.transaction(async (tx) => {
          await queue.enqueue(tenantId, kind, { n: 1 }, { db: tx });
          throw new Error('the document insert failed');
        }),
      ).rejects.toThrow('the document insert failed');
      await expect(queue.claim('w', [kind], LONG_LEASE)).resolves.toBeNull();

      const id = await database.db.transaction((tx) => queue.enqueue(tenantId, kind, { n: 2 }, { db: tx }));
      expect(await queue.claim('w', [kind], LONG_LEASE)).toMatchObject({ id, payload: { n: 2 } });
    });

    it("does not claim a job before its run_at, and claims a tenant's ready jobs in the order they were queued", async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('run-at');
      const ago = (ms: number) => new Date(Date.now() - ms);
      const future = await queue.enqueue(tenantId, kind, {}, { runAt: new Date(Date.now() + 60 * 60_000) });
      const middle = await queue.enqueue(tenantId, kind, {}, { runAt: ago(2_000) });
      const newest = await queue.enqueue(tenantId, kind, {}, { runAt: ago(1_000) });
      const oldest = await queue.enqueue(tenantId, kind, {}, { runAt: ago(3_000) });

      const order: number[] = [];
      for (let job = await queue.claim('w', [kind], LONG_LEASE); job; job = await queue.claim('w', [kind], LONG_LEASE)) {
        order.push(job.id);
      }
      // Turns follow the queueing (fair-turn.ts); run_at only says when a job may start.
      expect(order).toEqual([middle, newest, oldest]);
      expect(await statusOf(tenantId, future)).toBe('queued');
    });

    describe("a tenant's cap on running jobs (issue 34.1)", () => {
      const capTenant = async (cap: number) => {
        const tenantId = await createTenant();
        await database.db.update(tenants).set({ maxRunningJobs: cap }).where(eq(tenants.id, tenantId));
        return tenantId;
      };

      it('hands a tenant at its cap no job until one of its jobs ends; other tenants go on', async () => {
        const [a, b] = [await capTenant(2), await createTenant()];
        const kind = uniqueKind('cap');
        for (let i = 0; i < 5; i++) await queue.enqueue(a, kind, { i });
        const bJob = await queue.enqueue(b, kind, {});
        const first = await queue.claim('w1', [kind], LONG_LEASE);
        const second = await queue.claim('w2', [kind], LONG_LEASE);
        const third = await queue.claim('w3', [kind], LONG_LEASE);
        expect([first?.tenantId, second?.tenantId, third?.tenantId].filter((t) => t === a)).toHaveLength(2);
        expect([first?.id, second?.id, third?.id]).toContain(bJob);
        expect(await queue.claim('w4', [kind], LONG_LEASE)).toBeNull();
        await queue.complete([first, second, third].find((job) => job?.tenantId === a)!);
        expect((await queue.claim('w4', [kind], LONG_LEASE))?.tenantId).toBe(a);
      });

      it('holds the cap when workers claim at the same moment', async () => {
        const a = await capTenant(3);
        const kind = uniqueKind('cap-race');
        for (let i = 0; i < 12; i++) await queue.enqueue(a, kind, { i });
        // On PostgreSQL the pool's connections claim in parallel; PGlite has one session.
        const claims = await Promise.all(Array.from({ length: 8 }, (_, n) => queue.claim(`racer-${n}`, [kind], LONG_LEASE)));
        expect(claims.filter(Boolean)).toHaveLength(3);
        const [{ running }] = await queryRows<{ running: number }>(
          database.db,
          sql`SELECT count(*)::int AS running FROM jobs WHERE tenant_id = ${a} AND status = 'running'`,
        );
        expect(running).toBe(3);
      });
    });

    it('claims background work (bulk loads, backfills) only when no other job is ready, in turns of its own', async () => {
      const [a, b] = [await createTenant(), await createTenant()];
      const kind = uniqueKind('background');
      const bulk = [await queue.enqueue(a, kind, {}, { background: true }), await queue.enqueue(a, kind, {}, { background: true })];
      const ordinary = await queue.enqueue(b, kind, {});
      const mine = await queue.enqueue(a, kind, {});
      const order: number[] = [];
      for (let job = await queue.claim('w', [kind], LONG_LEASE); job; job = await queue.claim('w', [kind], LONG_LEASE)) order.push(job.id);
      // a's own ordinary job is not behind its bulk load either: turns are taken within a class.
      expect(order.slice(0, 2).sort((x, y) => x - y)).toEqual([ordinary, mine].sort((x, y) => x - y));
      expect(order.slice(2)).toEqual(bulk);
    });

    describe('fair turns across tenants (issue 34.1)', () => {
      const claimAll = async (kind: string, count: number) => {
        const claimed: { tenantId: string; id: number }[] = [];
        for (let i = 0; i < count; i++) {
          const job = await queue.claim('w', [kind], LONG_LEASE);
          if (!job) break;
          claimed.push({ tenantId: job.tenantId, id: job.id });
        }
        return claimed;
      };

      it("serves a tenant's one new job within two claims, whatever another tenant has queued", async () => {
        const [a, b] = [await createTenant(), await createTenant()];
        const kind = uniqueKind('fair-one');
        for (let i = 0; i < 60; i++) await queue.enqueue(a, kind, { i });
        const first = await queue.claim('w', [kind], LONG_LEASE);
        expect(first?.tenantId).toBe(a);
        const bJob = await queue.enqueue(b, kind, {});
        const next = await claimAll(kind, 2);
        expect(next.map((job) => job.id)).toContain(bJob);
        // Oldest first across tenants (the old FIFO) would have served all 60 of a's jobs first.
      });

      it('alternates two backlogs job by job, each tenant in its own order', async () => {
        const [a, b] = [await createTenant(), await createTenant()];
        const kind = uniqueKind('fair-two');
        const aJobs: number[] = [];
        const bJobs: number[] = [];
        for (let i = 0; i < 20; i++) aJobs.push(await queue.enqueue(a, kind, { i }));
        for (let i = 0; i < 20; i++) bJobs.push(await queue.enqueue(b, kind, { i }));
        const claimed = await claimAll(kind, 40);
        const firstTwenty = claimed.slice(0, 20);
        expect(firstTwenty.filter((job) => job.tenantId === b).length).toBeGreaterThanOrEqual(9);
        expect(claimed.filter((job) => job.tenantId === a).map((job) => job.id)).toEqual(aJobs);
        expect(claimed.filter((job) => job.tenantId === b).map((job) => job.id)).toEqual(bJobs);
      });

      it("puts a retried job behind its tenant's backlog, and resumed jobs behind the others' turns", async () => {
        const [a, b] = [await createTenant(), await createTenant()];
        const kind = uniqueKind('fair-requeue');
        const retried = await queue.enqueue(a, kind, {});
        const rest = [await queue.enqueue(a, kind, {}), await queue.enqueue(a, kind, {})];
        const job = await queue.claim('w', [kind], LONG_LEASE);
        expect(job?.id).toBe(retried);
        await queue.fail(job!, new Error('try again'), { retryInMs: 1 });
        await sleep(20);
        expect((await claimAll(kind, 3)).map((j) => j.id)).toEqual([...rest, retried]);

        // Thirty of a's jobs parked (a cap), b's five queued meanwhile; resumed, a's go behind b's turns, not all before them.
        const parked: number[] = [];
        for (let i = 0; i < 30; i++) parked.push(await queue.enqueue(a, kind, { i }));
        for (let i = 0; i < 30; i++) {
          const held = await queue.claim('w', [kind], LONG_LEASE);
          await queue.defer(held!, { reason: 'cap' });
        }
        const bJobs: number[] = [];
        for (let i = 0; i < 5; i++) bJobs.push(await queue.enqueue(b, kind, { i }));
        expect(await queue.resumeDeferred(a)).toBe(30);
        const claimed = await claimAll(kind, 35);
        const lastOfB = Math.max(...bJobs.map((id) => claimed.findIndex((j) => j.id === id)));
        expect(lastOfB).toBeLessThan(12);
        expect(claimed.filter((j) => j.tenantId === a).map((j) => j.id)).toEqual(parked);
      });
    });

    it('hands a job whose lease expired to another worker, and refuses the old holder afterwards', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('lease');
      const id = await queue.enqueue(tenantId, kind, {});
      const first = await queue.claim('worker-a', [kind], SHORT_LEASE);
      expect(first?.id).toBe(id);
      await expect(queue.claim('worker-b', [kind], SHORT_LEASE)).resolves.toBeNull();

      await sleep(SHORT_LEASE + 100);
      const second = await queue.claim('worker-b', [kind], LONG_LEASE);
      expect(second).toMatchObject({ id, lockedBy: 'worker-b', attempts: 2, status: 'running' });
      expect(second?.lastError).toMatch(/lease expired: worker worker-a stopped renewing during attempt 1 of 5/);

      // worker-a wakes up: every write it tries is refused, so worker-b's result stands.
      await expect(queue.complete(first!)).resolves.toBe(false);
      await expect(queue.heartbeat(first!, LONG_LEASE)).resolves.toBe(false);
      await expect(queue.fail(first!, new Error('late'), { retryInMs: 0 })).resolves.toBe(false);
      await expect(queue.defer(first!, { reason: 'late' })).resolves.toBe(false);
      await expect(queue.release(first!)).resolves.toBe(false);
      expect(await queue.get(tenantId, id)).toMatchObject({ status: 'running', lockedBy: 'worker-b', attempts: 2 });

      await expect(queue.complete(second!)).resolves.toBe(true);
      expect(await statusOf(tenantId, id)).toBe('done');
    });

    it('fences leases by attempt, so the same worker id cannot complete a lease it lost', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('fence');
      await queue.enqueue(tenantId, kind, {});
      const stale = await queue.claim('worker-a', [kind], SHORT_LEASE);
      await sleep(SHORT_LEASE + 100);
      const fresh = await queue.claim('worker-a', [kind], LONG_LEASE);
      expect(fresh?.attempts).toBe(2);
      await expect(queue.complete(stale!)).resolves.toBe(false);
      await expect(queue.complete(fresh!)).resolves.toBe(true);
    });

    it('fails a job whose last allowed attempt’s lease expired instead of handing it out again', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('exhausted');
      const id = await queue.enqueue(tenantId, kind, {}, { maxAttempts: 1 });
      const job = await queue.claim('worker-a', [kind], SHORT_LEASE);
      expect(job?.attempts).toBe(1);
      await sleep(SHORT_LEASE + 100);

      await expect(queue.claim('worker-b', [kind], LONG_LEASE)).resolves.toBeNull();
      const failed = await queue.get(tenantId, id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1, lockedBy: 'worker-a', leaseExpiresAt: null });
      expect(failed?.lastError).toMatch(/lease expired: worker worker-a stopped renewing during attempt 1 of 1/);
      await expect(queue.complete(job!)).resolves.toBe(false);
    });

    it('extends a lease on heartbeat while the worker holds it', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('heartbeat');
      const id = await queue.enqueue(tenantId, kind, {});
      const job = await queue.claim('worker-a', [kind], SHORT_LEASE);
      await expect(queue.heartbeat(job!, 2_000)).resolves.toBe(true);
      const renewed = await queue.get(tenantId, id);
      expect(renewed!.leaseExpiresAt!.getTime()).toBeGreaterThanOrEqual(job!.lockedAt!.getTime() + 2_000);

      await sleep(SHORT_LEASE + 100);
      // Past the first lease, still inside the renewed one.
      await expect(queue.claim('worker-b', [kind], LONG_LEASE)).resolves.toBeNull();
      await expect(queue.complete(job!)).resolves.toBe(true);
      await expect(queue.heartbeat(job!, 2_000)).resolves.toBe(false);
    });

    it('retries a failed job until max_attempts, then fails it with the last error', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('retry');
      const id = await queue.enqueue(tenantId, kind, {}, { maxAttempts: 3 });
      for (let attempt = 1; attempt <= 3; attempt++) {
        const job = await queue.claim('w', [kind], LONG_LEASE);
        expect(job).toMatchObject({ id, attempts: attempt });
        await expect(queue.fail(job!, new Error(`boom ${attempt}`), { retryInMs: 0 })).resolves.toBe(true);
        const after = await queue.get(tenantId, id);
        expect(after).toMatchObject({
          status: attempt < 3 ? 'queued' : 'failed',
          attempts: attempt,
          lastError: `Error: boom ${attempt}`,
        });
        if (attempt < 3) expect(after).toMatchObject({ lockedBy: null, leaseExpiresAt: null });
      }
      await expect(queue.claim('w', [kind], LONG_LEASE)).resolves.toBeNull();
    });

    it('holds a retry back until its retry time, and fails at once without one', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('retry-at');
      const later = await queue.enqueue(tenantId, kind, {});
      const job = await queue.claim('w', [kind], LONG_LEASE);
      await queue.fail(job!, 'rate limited', { retryAt: new Date(Date.now() + 60 * 60_000) });
      expect(await queue.get(tenantId, later)).toMatchObject({ status: 'queued', lastError: 'rate limited' });
      await expect(queue.claim('w', [kind], LONG_LEASE)).resolves.toBeNull();

      const now = await queue.enqueue(tenantId, kind, {});
      const second = await queue.claim('w', [kind], LONG_LEASE);
      expect(second?.id).toBe(now);
      await queue.fail(second!, new NonRetryableJobError('bad payload'));
      expect(await queue.get(tenantId, now)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'NonRetryableJobError: bad payload' });
    });

    it('parks a deferred job until it is resumed, giving its attempt back', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('defer');
      const id = await queue.enqueue(tenantId, kind, {});
      const job = await queue.claim('w', [kind], LONG_LEASE);
      await expect(queue.defer(job!, { reason: 'cost cap reached' })).resolves.toBe(true);
      expect(await queue.get(tenantId, id)).toMatchObject({
        status: 'deferred',
        attempts: 0,
        lastError: 'deferred: cost cap reached',
        lockedBy: null,
      });
      await expect(queue.claim('w', [kind], LONG_LEASE)).resolves.toBeNull();
      await expect(queue.complete(job!)).resolves.toBe(false);

      await expect(queue.resume(tenantId, id)).resolves.toBe(true);
      await expect(queue.resume(tenantId, id)).resolves.toBe(false);
      expect(await queue.claim('w', [kind], LONG_LEASE)).toMatchObject({ id, attempts: 1 });
    });

    it('resumes a tenant’s deferred jobs in bulk, and honours a deferral’s until', async () => {
      const [tenantId, otherTenant] = [await createTenant(), await createTenant()];
      const kind = uniqueKind('resume-all');
      const mine = [await queue.enqueue(tenantId, kind, {}), await queue.enqueue(tenantId, kind, {})];
      const theirs = await queue.enqueue(otherTenant, kind, {});
      for (let job = await queue.claim('w', [kind], LONG_LEASE); job; job = await queue.claim('w', [kind], LONG_LEASE)) {
        const until = job.id === mine[1] ? new Date(Date.now() + 60 * 60_000) : undefined;
        await queue.defer(job, { reason: 'window closed', until });
      }

      await expect(queue.resumeDeferred(tenantId)).resolves.toBe(2);
      expect(await statusOf(otherTenant, theirs)).toBe('deferred');
      // mine[1] is queued again but not due for an hour.
      expect((await queue.claim('w', [kind], LONG_LEASE))?.id).toBe(mine[0]);
      await expect(queue.claim('w', [kind], LONG_LEASE)).resolves.toBeNull();
      expect(await statusOf(tenantId, mine[1])).toBe('queued');

      // Without a tenant it resumes everyone's (including other tests' deferred jobs, hence ≥ 1).
      await expect(queue.resumeDeferred()).resolves.toBeGreaterThanOrEqual(1);
      expect(await statusOf(otherTenant, theirs)).toBe('queued');
    });

    it('hands each job to exactly one of four concurrent claimers', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('race');
      const ids = new Set<number>();
      for (let n = 0; n < 50; n++) ids.add(await queue.enqueue(tenantId, kind, { n }));

      // On Postgres each claimer has its own pool, as separate worker machines would; PGlite has
      // one session, so there the four loops interleave their statements on it.
      const stores = onPostgres
        ? Array.from({ length: 4 }, () => PostgresDatabase.connect(environment.settings.database.url!, 2))
        : [];
      const claimers = onPostgres ? stores.map((store) => new JobQueue(store)) : [queue, queue, queue, queue];
      const seen: { worker: string; id: number }[] = [];
      try {
        await Promise.all(
          claimers.map(async (claimer, index) => {
            const worker = `claimer-${index}`;
            // A null can be transient (a row another claimer held for an instant), so keep going
            // until every job is accounted for.
            while (seen.length < ids.size) {
              const job = await claimer.claim(worker, [kind], LONG_LEASE);
              if (!job) {
                await sleep(2);
                continue;
              }
              seen.push({ worker, id: job.id });
              expect(await claimer.complete(job)).toBe(true);
            }
          }),
        );
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }

      expect(seen).toHaveLength(50);
      expect(new Set(seen.map((entry) => entry.id))).toEqual(ids);
      const rows = await database.db
        .select({ status: jobs.status, attempts: jobs.attempts })
        .from(jobs)
        .where(and(eq(jobs.tenantId, tenantId), eq(jobs.kind, kind)));
      expect(rows.every((row) => row.status === 'done' && row.attempts === 1)).toBe(true);
      if (onPostgres) expect(new Set(seen.map((entry) => entry.worker)).size).toBeGreaterThan(1);
    });

    it('finds ready jobs through the partial indexes, not a scan of finished ones', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('plan');
      // A queue in steady state: many finished jobs, a few waiting, a few running.
      await database.db.execute(sql`
        INSERT INTO jobs (tenant_id, kind, status, attempts, run_at)
        SELECT ${tenantId}::uuid, ${kind}, 'done', 1, now() - interval '1 day' FROM generate_series(1, 10000)`);
      for (let n = 0; n < 20; n++) await queue.enqueue(tenantId, kind, { n });
      for (let n = 0; n < 3; n++) await queue.claim(`busy-${n}`, [kind], LONG_LEASE);
      await database.db.execute(sql`ANALYZE jobs`);

      const [row] = await queryRows<Record<string, unknown>>(
        database.db,
        sql`EXPLAIN (FORMAT JSON) ${claimStatement(database.db, 'planner', [kind], LONG_LEASE).getSQL()}`,
      );
      const raw = Object.values(row)[0];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }];
      const nodes = flatten(plan[0].Plan);
      const scansOfJobs = nodes.filter((node) => node['Relation Name'] === 'jobs' && node['Node Type'].endsWith('Scan'));
      expect(scansOfJobs.map((node) => `${node['Node Type']} ${node['Index Name']}`).sort()).toEqual([
        'Index Scan jobs_background_ready_idx',
        'Index Scan jobs_ready_idx',
        // The expired branch, and the tenants at their running cap (the running jobs, once for each ready branch).
        'Index Scan jobs_running_idx',
        'Index Scan jobs_running_idx',
        'Index Scan jobs_running_idx',
        'Index Scan jobs_tenant_id_id_pk',
      ]);
      // Each branch stops at its first lockable row in index order: no sort of the backlog. The
      // one Sort orders the (at most two) candidates.
      const nodeTypes = nodes.map((node) => node['Node Type']);
      // The candidates' Sort (above the two LIMIT 1 branches), and maybe one grouping the running
      // jobs by tenant for the cap (or a hash): never a Sort of the backlog itself.
      const sorts = nodes.filter((node) => /Sort/.test(node['Node Type']));
      expect(sorts.length).toBeGreaterThanOrEqual(1);
      expect(sorts.length).toBeLessThanOrEqual(3);
      for (const sort of sorts) {
        const below = flatten(sort);
        const ofCandidates = below.some((node) => node['Node Type'] === 'Append');
        expect(ofCandidates || !below.some((node) => node['Index Name'] === 'jobs_ready_idx')).toBe(true);
      }
      expect(nodeTypes).not.toContain('Bitmap Heap Scan');
      // (The cap's join may read the few tenants of this test's store by a Seq Scan: never the jobs.)
      expect(nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'jobs')).toBe(false);

      // A new job's turn (fair-turn.ts): the first row of each of two partial indexes, never the backlog.
      const [turnRow] = await queryRows<Record<string, unknown>>(
        database.db,
        sql`EXPLAIN (FORMAT JSON) ${database.db.insert(jobs).values({ tenantId, kind, fairTag: nextTurnFor(tenantId) }).getSQL()}`,
      );
      const turnRaw = Object.values(turnRow)[0];
      const turnNodes = flatten(((typeof turnRaw === 'string' ? JSON.parse(turnRaw) : turnRaw) as [{ Plan: PlanNode }])[0].Plan);
      const turnScans = turnNodes.filter((node) => node['Relation Name'] === 'jobs' && node['Node Type'].endsWith('Scan'));
      // With one tenant's few queued rows the planner may read the tenant's last turn from either
      // partial index (at 1,000 tenants it takes jobs_tenant_queued_idx: queue README).
      expect(turnScans).toHaveLength(2);
      for (const scan of turnScans) {
        expect(`${scan['Node Type'].replace('Index Only Scan', 'Index Scan')} ${scan['Index Name']}`).toMatch(/^Index Scan jobs_(ready|tenant_queued)_idx$/);
      }
    });
  });

  describe('runner', () => {
    it('runs jobs with at most `concurrency` handlers in flight', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('concurrency');
      const ids = new Set<number>();
      for (let n = 0; n < 12; n++) ids.add(await queue.enqueue(tenantId, kind, { n }));
      let inFlight = 0;
      let maxInFlight = 0;
      let started = 0;
      const handled: number[] = [];
      const runner = newRunner().register(kind, async (job) => {
        inFlight++;
        started++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Each handler holds its slot until the runner has filled all three (or started every
        // job), so the test measures the cap and not how fast claims run on a busy machine: a
        // fixed 40 ms sleep saw only two in flight when PGlite's claims took longer under load.
        // The hold gives up after 3 s so a runner stuck below its cap fails the assertion, not the run.
        await waitFor(async () => inFlight >= 3 || started === ids.size, 3_000).catch(() => undefined);
        handled.push(job.id);
        inFlight--;
      });
      runner.start({ workerId: 'runner-c', concurrency: 3, pollIntervalMs: 20, leaseMs: LONG_LEASE });
      await runner.drain();

      expect(maxInFlight).toBe(3);
      expect(new Set(handled)).toEqual(ids);
      expect(handled).toHaveLength(12);
      for (const id of ids) expect(await statusOf(tenantId, id)).toBe('done');
    });

    it('processes each job exactly once across four runners', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runners');
      const ids = new Set<number>();
      for (let n = 0; n < 50; n++) ids.add(await queue.enqueue(tenantId, kind, { n }));

      const stores = onPostgres
        ? Array.from({ length: 4 }, () => PostgresDatabase.connect(environment.settings.database.url!, 3))
        : [];
      const queues = onPostgres ? stores.map((store) => new JobQueue(store)) : [queue, queue, queue, queue];
      const handled: { worker: string; id: number }[] = [];
      const started = queues.map((on, index) => {
        const worker = `runner-${index}`;
        const runner = newRunner({}, on).register(kind, async (job) => {
          handled.push({ worker, id: job.id });
          await sleep(Math.random() * 5);
        });
        runner.start({ workerId: worker, concurrency: 3, pollIntervalMs: 10, leaseMs: LONG_LEASE });
        return runner;
      });
      try {
        await waitFor(async () => {
          const [row] = await queryRows<{ n: number }>(
            database.db,
            sql`SELECT count(*)::int AS n FROM jobs WHERE tenant_id = ${tenantId} AND kind = ${kind} AND status = 'done'`,
          );
          return Number(row.n) === ids.size;
        }, 20_000);
        await Promise.all(started.map((runner) => runner.stop()));
      } finally {
        await Promise.all(started.map((runner) => runner.stop({ graceMs: 0 })));
        await Promise.all(stores.map((store) => store.close()));
      }
      expect(handled).toHaveLength(50);
      expect(new Set(handled.map((entry) => entry.id))).toEqual(ids);
    });

    it('retries a failing handler with backoff up to max_attempts, logging each failure', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-retry');
      const id = await queue.enqueue(tenantId, kind, {}, { maxAttempts: 3 });
      const { logger, lines } = recordingLogger();
      const attemptsSeen: number[] = [];
      const runner = newRunner({ logger }).register(kind, async (job) => {
        attemptsSeen.push(job.attempts);
        throw new Error(`boom ${job.attempts}`);
      });
      runner.start({ workerId: 'runner-r', pollIntervalMs: 10, leaseMs: LONG_LEASE });

      const failed = await waitFor(async () => {
        const job = await queue.get(tenantId, id);
        return job?.status === 'failed' ? job : undefined;
      });
      expect(failed).toMatchObject({ attempts: 3, lastError: 'Error: boom 3' });
      expect(attemptsSeen).toEqual([1, 2, 3]);
      expect(lines.filter((line) => line.level === 'warn' && line.message.includes('retrying'))).toHaveLength(2);
      expect(lines.filter((line) => line.level === 'error' && line.message.includes('failed for good'))).toHaveLength(1);
    });

    it('fails a job at once on an error that says it is not retryable, and keeps running others', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-fatal');
      const bad = await queue.enqueue(tenantId, kind, { bad: true });
      const good = await queue.enqueue(tenantId, kind, { bad: false });
      const calls: number[] = [];
      const runner = newRunner().register(kind, async (job) => {
        calls.push(job.id);
        if ((job.payload as { bad: boolean }).bad) throw Object.assign(new Error('no such document'), { retryable: false });
      });
      runner.start({ workerId: 'runner-f', pollIntervalMs: 10, leaseMs: LONG_LEASE });
      await runner.drain();

      expect(await queue.get(tenantId, bad)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'Error: no such document' });
      expect(await statusOf(tenantId, good)).toBe('done');
      expect(calls.sort()).toEqual([bad, good].sort());
    });

    it('retries a transient failure (a lost lock conflict) without using up an attempt', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-transient');
      const id = await queue.enqueue(tenantId, kind, {}, { maxAttempts: 1 });
      const attemptsSeen: number[] = [];
      const runner = newRunner().register(kind, async (job) => {
        attemptsSeen.push(job.attempts);
        if (attemptsSeen.length < 3) throw new TransientJobError('deadlock detected (40P01)');
      });
      runner.start({ workerId: 'runner-t', pollIntervalMs: 10, leaseMs: LONG_LEASE });

      const done = await waitFor(async () => {
        const job = await queue.get(tenantId, id);
        return job?.status === 'done' ? job : undefined;
      });
      expect(done).toMatchObject({ attempts: 1, lastError: 'TransientJobError: deadlock detected (40P01)' });
      expect(attemptsSeen).toEqual([1, 1, 1]);
    });

    it('survives database errors while claiming and picks up again', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-db-down');
      const id = await queue.enqueue(tenantId, kind, {});
      class FlakyQueue extends JobQueue {
        failures = 3;
        override async claim(workerId: string, kinds: readonly string[], leaseMs: number): Promise<Job | null> {
          if (this.failures-- > 0) throw new Error('connection terminated unexpectedly');
          return super.claim(workerId, kinds, leaseMs);
        }
      }
      const { logger, lines } = recordingLogger();
      const runner = newRunner({ logger }, new FlakyQueue(database)).register(kind, async () => undefined);
      runner.start({ workerId: 'runner-d', pollIntervalMs: 10, leaseMs: LONG_LEASE });

      await waitFor(async () => (await statusOf(tenantId, id)) === 'done');
      expect(lines.filter((line) => line.message.includes('connection terminated unexpectedly'))).toHaveLength(3);
    });

    it('wakes at once on notify() instead of waiting for the poll interval', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-notify');
      const runner = newRunner().register(kind, async () => undefined);
      runner.start({ workerId: 'runner-n', pollIntervalMs: 60_000, leaseMs: LONG_LEASE });
      await runner.drain(); // the loop has polled once and is now asleep for a minute

      const id = await queue.enqueue(tenantId, kind, {});
      queue.notify();
      await waitFor(async () => (await statusOf(tenantId, id)) === 'done', 3_000);
    });

    it('renews the lease while a handler runs longer than the lease', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-renew');
      const id = await queue.enqueue(tenantId, kind, {});
      let stolen: Job | null = null;
      let finished = false;
      const runner = newRunner().register(kind, async (_job, { signal }) => {
        // Another worker keeps trying to take the job over while it runs for 4 leases.
        const deadline = Date.now() + 4 * SHORT_LEASE;
        while (Date.now() < deadline && !stolen) {
          stolen = await queue.claim('thief', [kind], LONG_LEASE);
          await sleep(25);
        }
        expect(signal.aborted).toBe(false);
        finished = true;
      });
      runner.start({ workerId: 'runner-h', pollIntervalMs: 10, leaseMs: SHORT_LEASE });
      await waitFor(async () => finished && (await statusOf(tenantId, id)) === 'done');
      expect(stolen).toBeNull();
      expect((await queue.get(tenantId, id))?.attempts).toBe(1);
    });

    it('aborts the handler’s signal when its lease is lost, and records nothing over the new holder', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-lost');
      const id = await queue.enqueue(tenantId, kind, {});
      let reason: unknown;
      const runner = newRunner().register(kind, async (_job, { signal }) => {
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        reason = signal.reason;
      });
      runner.start({ workerId: 'runner-l', pollIntervalMs: 10, leaseMs: SHORT_LEASE });
      await waitFor(async () => (await statusOf(tenantId, id)) === 'running');

      // Another worker took the job over (as after a long pause of this process).
      await database.db
        .update(jobs)
        .set({ lockedBy: 'new-holder', attempts: sql`${jobs.attempts} + 1` })
        .where(and(eq(jobs.tenantId, tenantId), eq(jobs.id, id)));
      await waitFor(async () => reason, 3_000);
      expect(reason).toBeInstanceOf(LeaseLostError);
      await waitFor(async () => runner.inFlightCount === 0);
      expect(await queue.get(tenantId, id)).toMatchObject({ status: 'running', lockedBy: 'new-holder' });
    });

    it('stop() waits for in-flight handlers to finish', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-stop');
      const id = await queue.enqueue(tenantId, kind, {});
      let started = false;
      let finished = false;
      const runner = newRunner().register(kind, async () => {
        started = true;
        await sleep(150);
        finished = true;
      });
      runner.start({ workerId: 'runner-s', pollIntervalMs: 10, leaseMs: LONG_LEASE });
      await waitFor(async () => started);

      await runner.stop();
      expect(finished).toBe(true);
      expect(runner.inFlightCount).toBe(0);
      expect(await statusOf(tenantId, id)).toBe('done');
      // Stopped means stopped: new work stays queued.
      const later = await queue.enqueue(tenantId, kind, {});
      queue.notify();
      await sleep(50);
      expect(await statusOf(tenantId, later)).toBe('queued');
    });

    it('stop() aborts handlers that outlast the grace period and puts their jobs back', async () => {
      const tenantId = await createTenant();
      const kind = uniqueKind('runner-abort');
      const id = await queue.enqueue(tenantId, kind, {});
      let started = false;
      const runner = newRunner().register(kind, async (_job, { signal }) => {
        started = true;
        await new Promise<void>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      });
      runner.start({ workerId: 'runner-a', pollIntervalMs: 10, leaseMs: LONG_LEASE });
      await waitFor(async () => started);

      const stopping = Date.now();
      await runner.stop({ graceMs: 50 });
      expect(Date.now() - stopping).toBeLessThan(5_000);
      expect(await queue.get(tenantId, id)).toMatchObject({ status: 'queued', attempts: 0, lockedBy: null, leaseExpiresAt: null });
    });
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
