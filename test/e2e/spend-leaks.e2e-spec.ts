import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpendLeases } from '@loci/quota';
import { InferencesRepository, PlatformLimitsRepository, QuestionCountsRepository, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { LIMIT_STORE, LimitedClient, LimitStore, limitKeys, MemoryLimitStore, SpendControl, utcDay, utcMonth } from '@loci/quota';
import { createLimitedTenant, createTenant, createUser, freePort, LlmDouble, llmDoubleEnv, setTenantLimits, startLlmDouble, TenantLimits } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const DAY_MS = 86_400_000;
const ROOT = join(__dirname, '../..');
const BUILT_API = join(ROOT, 'dist/apps/api/src/main.js');
// A killed process's slot and reservation can only be seen by another process through Redis;
// the child also needs the test's database, which PGlite cannot share across processes.
const onSharedStores = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);
/** The killed process's leases: short, so the test waits seconds, not the default minutes. */
const CHILD_LEASES: SpendLeases = { slotLeaseMs: 3_000, reservationLeaseMs: 4_000 };
const QUESTION = { query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] };
const ANSWER = { text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } };

/**
 * Spend control leaks nothing when a request ends badly: a client that hangs up, a model call
 * that times out, a process killed mid-call. Each time the concurrency slot comes back and the
 * spend counters come back to the inference ledger's truth, by release when the process lives
 * and by lease expiry when it died. Runs on Redis + Postgres and on the embedded default; the
 * killed process needs Redis + Postgres (shared across processes) and is skipped without them.
 */
describe('spend control leaks nothing', () => {
  let double: LlmDouble;
  let t: TestApp;
  let store: LimitStore;
  let baseUrl: string;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_LLM_TIMEOUT_MS: '5000',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    store = t.app.get(LIMIT_STORE);
    // Listening for real, so a client can hang up mid-request.
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply(ANSWER);
  });

  const tenantWith = (limits: TenantLimits, billing?: 'platform' | 'own_key') => createLimitedTenant(t.app, limits, billing);

  const ask = (token: string) => t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send(QUESTION);

  /** The tenant's spend by the ledger (the truth: pending calls at their estimate) and by the counters. */
  async function spendOf(tenantId: string) {
    const now = await store.now();
    const dayFrom = Math.floor(now / DAY_MS) * DAY_MS;
    const d = new Date(now);
    const day = { from: new Date(dayFrom), to: new Date(dayFrom + DAY_MS) };
    const month = { from: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), to: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) };
    const ledger = await t.app.get(SpendLedgerRepository).tenantSpend(tenantId, day, month);
    return {
      ledgerDay: ledger.dayMicros,
      ledgerMonth: ledger.monthMicros,
      counterDay: await store.committed(limitKeys.tenantSpendDay(tenantId, utcDay(now))),
      counterMonth: await store.committed(limitKeys.tenantSpendMonth(tenantId, utcMonth(now))),
    };
  }

  /** The tenant's ledger rows: settled spend, calls still pending, answer calls. */
  async function rowsOf(tenantId: string) {
    const rows = await t.app.get(InferencesRepository).listByTenantSince(tenantId, new Date(Date.now() - 3_600_000));
    return {
      settled: rows.filter((r) => r.status !== 'pending').reduce((sum, r) => sum + r.costMicros, 0),
      pending: rows.filter((r) => r.status === 'pending'),
      answers: rows.filter((r) => r.stage === 'answer'),
    };
  }

  /** Whether any lease holds the user's slots (probed with a limit of 1, and given back at once). */
  async function slotHeld(tenantId: string, userId: string): Promise<boolean> {
    const key = limitKeys.clientSlots(tenantId, 'user', userId);
    const probe = `probe-${randomUUID()}`;
    const { ok } = await store.acquireSlot(key, probe, 1, 5_000);
    if (ok) await store.releaseSlot(key, probe);
    return !ok;
  }

  it('an aborted client: its call still runs and settles, then its slot is free and the counters equal the ledger', async () => {
    const { tenant, member } = await tenantWith({ maxConcurrentQueries: 1 });
    const held = gate();
    double.anthropic.queue({ ...ANSWER, hold: held.promise });
    const hangUp = new AbortController();
    const client = fetch(`${baseUrl}/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
      signal: hangUp.signal,
    }).then(
      (response) => `answered ${response.status}`,
      () => 'aborted',
    );
    try {
      await until(() => double.anthropic.requests.length === 1, 20_000, 'the answer call to reach the double');
      hangUp.abort();
      expect(await client).toBe('aborted');

      // The model call goes on (and is paid for) without the client: its slot and reservation stay.
      await ask(member.token).expect(429);
      const during = await rowsOf(tenant.id);
      expect(during.pending).toHaveLength(1);
      expect((await spendOf(tenant.id)).counterDay).toBe(during.settled + during.pending[0].estimatedCostMicros);
    } finally {
      held.open();
    }

    // Released by the request itself, long before its 60 s lease could expire.
    await until(async () => (await rowsOf(tenant.id)).pending.length === 0 && !(await slotHeld(tenant.id, member.id)), 15_000, 'the slot to be released');
    const after = await rowsOf(tenant.id);
    expect(after.answers.map((r) => [r.status, r.costMicros])).toEqual([['ok', 1_500]]);
    const spend = await spendOf(tenant.id);
    expect(spend.counterDay).toBe(spend.ledgerDay);
    expect(spend.counterMonth).toBe(spend.ledgerMonth);
    expect(spend.ledgerDay).toBe(after.settled);
    await ask(member.token).expect(200);
  });

  it('a model timeout: the call settles to what was billed and the slot is free at once', async () => {
    const { tenant, member } = await tenantWith({ maxConcurrentQueries: 1 });
    double.anthropic.queue({ ...ANSWER, delayMs: 6_000 }); // past LOCI_LLM_TIMEOUT_MS
    const timedOut = await ask(member.token);
    expect(timedOut.status).toBeGreaterThanOrEqual(500);
    await ask(member.token).expect(200);
    const rows = await rowsOf(tenant.id);
    expect(rows.answers.map((r) => [r.status, r.costMicros])).toEqual([
      ['error', 0],
      ['ok', 1_500],
    ]);
    expect(rows.pending).toHaveLength(0);
    const spend = await spendOf(tenant.id);
    expect(spend).toEqual({ ledgerDay: rows.settled, ledgerMonth: rows.settled, counterDay: rows.settled, counterMonth: rows.settled });
  });

  describe('SpendControl on its own store', () => {
    async function tenantAndUser(maxConcurrentQueries: number | null) {
      const tenant = await createTenant(t.app);
      await setTenantLimits(t.app, tenant.id, { dailyCostCapMicros: null, monthlyCostCapMicros: null, dailyQueryQuota: null, maxConcurrentQueries });
      const member = await createUser(t.app, tenant.id, 'member');
      return { tenant, member };
    }

    const controlOn = (own: LimitStore, leases: SpendLeases) =>
      new SpendControl(own, t.app.get(TenantsRepository), t.app.get(PlatformLimitsRepository), t.app.get(SpendLedgerRepository), leases, t.app.get(QuestionCountsRepository));

    it('a double release or a release after expiry frees nothing else: not a slot, not a reservation', async () => {
      // Noon UTC today on the store's clock, so the window holds whatever the test advances.
      let now = Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS / 2;
      const own = new MemoryLimitStore(() => now);
      const control = controlOn(own, { slotLeaseMs: 1_000, reservationLeaseMs: 1_000 });
      const { tenant, member } = await tenantAndUser(1);
      const client = (requestId: string): LimitedClient => ({ tenantId: tenant.id, clientKind: 'user', clientId: member.id, requestId });
      const admit = (requestId: string) => control.admit(client(requestId), { countsQuota: false });

      const stalled = await admit('r1');
      now += 10_000; // its process stalled past the lease: the slot went to the next request
      const current = await admit('r2');
      await stalled.release();
      await stalled.release();
      await expect(admit('r3')).rejects.toMatchObject({ status: 429, body: { error: 'too_many_concurrent_queries' } });
      await current.release();
      await (await admit('r3')).release();

      const dayKey = limitKeys.tenantSpendDay(tenant.id, utcDay(now));
      const base = await own.committed(dayKey);
      const late = await control.reserve(tenant.id, randomUUID(), 7_000);
      now += 10_000; // expired unsettled; then another call reserves
      const live = await control.reserve(tenant.id, randomUUID(), 3_000);
      expect(await own.committed(dayKey)).toBe(base + 3_000);
      await late.settle(100);
      await late.settle(100);
      expect(await own.committed(dayKey)).toBe(base + 100 + 3_000);
      await live.settle(50);
      await live.settle(50);
      expect(await own.committed(dayKey)).toBe(base + 150);
    });

    it('keeps a reservation past its lease while the call runs, and stops renewing once it is settled', async () => {
      const own = new MemoryLimitStore();
      const renewals = jest.spyOn(own, 'renewReservation');
      const control = controlOn(own, { slotLeaseMs: 1_000, reservationLeaseMs: 1_000 });
      const { tenant } = await tenantAndUser(null);
      const dayKey = limitKeys.tenantSpendDay(tenant.id, utcDay(await own.now()));
      const reservation = await control.reserve(tenant.id, randomUUID(), 5_000);
      const base = (await own.committed(dayKey)) - 5_000;
      await sleep(2_500); // a call 2.5 leases long
      expect(await own.committed(dayKey)).toBe(base + 5_000);
      await reservation.settle(10);
      expect(await own.committed(dayKey)).toBe(base + 10);
      const renewed = renewals.mock.calls.length;
      expect(renewed).toBeGreaterThan(0);
      await sleep(1_000);
      expect(renewals.mock.calls.length).toBe(renewed);
    });
  });

  const killedTitle = onSharedStores
    ? 'a process killed mid-call (a second API process sharing Redis and Postgres)'
    : 'a process killed mid-call: SKIPPED, needs REDIS_URL and DATABASE_URL (the in-process store and PGlite belong to one process)';
  describe(killedTitle, () => {
    const itShared = onSharedStores ? it : it.skip;
    let child: ChildProcess | undefined;
    let exited: Promise<unknown> | undefined;
    let childUrl: string;
    let childOutput = '';
    let childDataDir: string | undefined;

    beforeAll(async () => {
      if (!onSharedStores) return;
      // CI builds before testing (.ci/run); a fresh checkout may not have.
      if (!existsSync(BUILT_API)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
      const port = await freePort();
      childDataDir = mkdtempSync(join(tmpdir(), 'loci-child-'));
      child = spawn(process.execPath, [BUILT_API], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          HOST: '127.0.0.1',
          PORT: String(port),
          // The same (already migrated) database, Redis and token secret as the in-process app.
          DATABASE_URL: t.settings.database.url,
          LOCI_MIGRATE_ON_START: 'false',
          REDIS_URL: t.settings.redis.url,
          JWT_SECRET: t.settings.jwt.secret,
          LOCI_ENCRYPTION_KEY: t.settings.encryptionKey.toString('base64'),
          LOCI_DATA_DIR: childDataDir,
          LOCI_RUN_WORKER: 'false',
          ...llmDoubleEnv(double),
          LOCI_LLM_MAX_RETRIES: '0',
          LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
          LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
          LOCI_QUERY_MIN_SIMILARITY: '-1',
          LOCI_SLOT_LEASE_MS: String(CHILD_LEASES.slotLeaseMs),
          LOCI_RESERVATION_LEASE_MS: String(CHILD_LEASES.reservationLeaseMs),
        },
      });
      child.stdout!.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (childOutput += chunk.toString()));
      exited = new Promise((resolve) => child!.once('exit', resolve));
      childUrl = `http://127.0.0.1:${port}`;
      await until(
        async () => {
          if (child!.exitCode !== null) throw new Error(`the API process exited (${child!.exitCode}) during boot:\n${childOutput}`);
          return fetch(`${childUrl}/healthz`).then((r) => r.ok, () => false);
        },
        60_000,
        () => `the API process to answer /healthz\n${childOutput}`,
      );
    }, 660_000);
    afterAll(async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      if (childDataDir) rmSync(childDataDir, { recursive: true, force: true });
    });

    itShared('its slot and reservation expire within the lease; the ledger keeps the call at its estimate, enforced; the next question is admitted', async () => {
      const { tenant, member } = await tenantWith({ maxConcurrentQueries: 1 });
      const held = gate(); // opened only after the process is dead: the call never completes
      double.anthropic.queue({ ...ANSWER, hold: held.promise });
      try {
        const inFlight = fetch(`${childUrl}/v1/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${member.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(QUESTION),
        }).then(
          (response) => `answered ${response.status}`,
          () => 'connection lost',
        );
        await until(() => double.anthropic.requests.length === 1, 30_000, () => `the API process's answer call to reach the double\n${childOutput}`);
        const running = await rowsOf(tenant.id);
        expect(running.pending).toHaveLength(1);
        const estimate = running.pending[0].estimatedCostMicros;
        expect(estimate).toBeGreaterThan(1_500);
        const expectHeld = async () => {
          expect(await slotHeld(tenant.id, member.id)).toBe(true);
          expect((await spendOf(tenant.id)).counterDay).toBe(running.settled + estimate);
        };
        await expectHeld();
        // A call longer than both leases: the live process renews its slot and its reservation.
        await sleep(CHILD_LEASES.reservationLeaseMs + 1_000);
        await expectHeld();
        await ask(member.token).expect(429); // the other process sees the slot taken (shared Redis)

        child!.kill('SIGKILL');
        await exited;
        expect(await inFlight).toBe('connection lost');
        await expectHeld(); // nobody released anything: only the leases can end them

        await until(
          async () => !(await slotHeld(tenant.id, member.id)) && (await spendOf(tenant.id)).counterDay === running.settled,
          CHILD_LEASES.reservationLeaseMs + 15_000,
          'the dead process’s slot and reservation to expire',
        );
        // The ledger keeps the unfinished call at its worst case (it may have been billed); the
        // counter now holds settled spend only.
        const after = await rowsOf(tenant.id);
        expect(after.pending.map((r) => [r.status, r.estimatedCostMicros])).toEqual([['pending', estimate]]);
        expect(after.settled).toBe(running.settled);
        const spend = await spendOf(tenant.id);
        expect(spend.counterDay).toBe(running.settled);
        expect(spend.ledgerDay).toBe(running.settled + estimate);

        // Enforced at max(counter, ledger): a cap with room for the dead call's estimate and one
        // more question at its worst case (the same estimate), but not two. Counting the counter
        // alone would admit both.
        await setTenantLimits(t.app, tenant.id, { dailyCostCapMicros: spend.ledgerDay + estimate + 1_000 });
        await ask(member.token).expect(200);
        const refused = await ask(member.token).expect(402);
        expect(refused.body.detail.error).toBe('cost_cap_exceeded');
        expect(Math.round(refused.body.detail.spent * 1e6)).toBeGreaterThanOrEqual(spend.ledgerDay);
      } finally {
        held.open();
      }
    }, 120_000);
  });
});

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until the condition holds, failing after the deadline. */
async function until(condition: () => boolean | Promise<boolean>, deadlineMs: number, what: string | (() => string)): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(50);
  }
}

