import type { INestApplication } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import Redis from 'ioredis';
import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';
import { Database, DATABASE, inferences, InferencesRepository, PlatformLimitsRepository, QuestionCountsRepository, queryRows, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { LIMIT_STORE, LimitStore, limitKeys, MemoryLimitStore, SpendControl, utcDay, utcMonth } from '@loci/quota';
import { createLimitedTenant, createTenant, LlmDouble, llmDoubleEnv, setTenantLimits, startLlmDouble, TenantLimits } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { createApp } from '../../apps/api/src/create-app';
import { LEDGER_CHECK_TTL_MS } from '../../libs/quota/src/spend-control/ledger-mirror';

const DAY_MS = 86_400_000;
const onRedis = Boolean(process.env.REDIS_URL);

/**
 * Spend control under faults: the inference ledger is the truth and the limit store's counters
 * a cache of it, rebuilt after the store loses them, enforced at the larger of the two, exact to
 * the micro-dollar across many settlements and two app instances. Runs on Redis + Postgres
 * (REDIS_URL, DATABASE_URL) and on the embedded default (in-process store, PGlite).
 */
describe('spend control under faults', () => {
  let double: LlmDouble;
  let t: TestApp;
  let store: LimitStore;
  let redis: Redis | undefined;
  let bulkTenantId: string | undefined;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_LLM_TIMEOUT_MS: '1000',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
      LOCI_RUN_WORKER: 'false',
    });
    store = t.app.get(LIMIT_STORE);
    // Both apps are built with LOCI_RUN_WORKER=false (as API replicas next to apps/worker); the
    // first runs the queue explicitly, so the second instance has no worker of its own.
    t.app.get(IngestWorker).start();
    if (onRedis) redis = new Redis(process.env.REDIS_URL!);
  });
  afterAll(async () => {
    redis?.disconnect();
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });

  const tenantWith = (limits: TenantLimits, billing?: 'platform' | 'own_key') => createLimitedTenant(t.app, limits, billing);

  const ask = (http: TestApp['http'], token: string) =>
    http.post('/v1/query').set('Authorization', `Bearer ${token}`).send({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] });

  async function windows() {
    const now = await store.now();
    const dayFrom = Math.floor(now / DAY_MS) * DAY_MS;
    const d = new Date(now);
    return {
      now,
      day: { from: new Date(dayFrom), to: new Date(dayFrom + DAY_MS) },
      month: { from: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), to: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) },
    };
  }

  /** The tenant's spend by the ledger (the truth) and by the counters (the cache). */
  async function spendOf(tenantId: string) {
    const { now, day, month } = await windows();
    const ledger = await t.app.get(SpendLedgerRepository).tenantSpend(tenantId, day, month);
    return {
      ledgerDay: ledger.dayMicros,
      ledgerMonth: ledger.monthMicros,
      counterDay: await store.committed(limitKeys.tenantSpendDay(tenantId, utcDay(now))),
      counterMonth: await store.committed(limitKeys.tenantSpendMonth(tenantId, utcMonth(now))),
    };
  }

  /**
   * The store loses the tenant's counters. On Redis only this tenant's keys go (the Redis is
   * shared with other test files: never FLUSHALL, and the platform day key is left alone since
   * other files' tests count on it). The in-process store can only lose everything: close()
   * empties it, as a restart would (it is this app's own store, so the platform key goes too).
   */
  async function flushTenant(tenantId: string): Promise<void> {
    if (!redis) {
      await store.close();
      return;
    }
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `loci:{t:${tenantId}}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  it('sums a pending call at its estimate and a completed one at its cost, per UTC window', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    const rows = t.app.get(InferencesRepository);
    const call = (requestId: string, estimatedCostMicros: number) =>
      rows.begin({ tenantId: tenant.id, requestId, callIndex: 0, kind: 'query', stage: 'answer', provider: 'anthropic', model: 'm', billedTo: 'own_key', estimatedCostMicros });
    await call('a', 9_000);
    await rows.complete({ tenantId: tenant.id, requestId: 'a', callIndex: 0 }, { status: 'ok', tokensIn: 1, tokensOut: 1, tokensThinking: 0, costMicros: 1_234, latencyMs: 1 });
    await call('b', 5_000);
    await rows.complete({ tenantId: tenant.id, requestId: 'b', callIndex: 0 }, { status: 'error', tokensIn: 0, tokensOut: 0, tokensThinking: 0, costMicros: 0, latencyMs: 1 });
    await call('c', 7_777); // in flight, or its process died: counted at its worst case
    const { day, month } = await windows();
    const ledger = t.app.get(SpendLedgerRepository);
    await expect(ledger.tenantSpend(tenant.id, day, month)).resolves.toEqual({ dayMicros: 9_011, monthMicros: 9_011 });
    const yesterday = { from: new Date(day.from.getTime() - DAY_MS), to: day.from };
    await expect(ledger.tenantSpend(tenant.id, yesterday, month)).resolves.toEqual({ dayMicros: 0, monthMicros: 9_011 });
  });

  it('dates a reservation by the store clock, in the day it charged: 23:59:55 stays in its day', async () => {
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const lastSeconds = today - 5_000; // yesterday 23:59:55 on the store's clock, today on this one
    const own = new MemoryLimitStore(() => lastSeconds);
    const leases = { slotLeaseMs: 60_000, reservationLeaseMs: 60_000 };
    const control = new SpendControl(own, t.app.get(TenantsRepository), t.app.get(PlatformLimitsRepository), t.app.get(SpendLedgerRepository), leases, t.app.get(QuestionCountsRepository));
    const tenant = await createTenant(t.app);
    const reservation = await control.reserve(tenant.id, randomUUID(), 1_000);
    expect(utcDay(reservation.at.getTime())).toBe(utcDay(lastSeconds));
    await expect(own.committed(limitKeys.tenantSpendDay(tenant.id, utcDay(lastSeconds)))).resolves.toBe(1_000);
    await reservation.settle(1_000);
  });

  it("writes a spend-limited call's ledger row with its reservation's time", async () => {
    const { tenant, member } = await tenantWith({});
    const control = t.app.get(SpendControl);
    const reserve = control.reserve.bind(control);
    const dated = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 1_000); // yesterday 23:59:59
    // The gateway dates the row by what spend control answers; here spend control says 23:59:59.
    const spy = jest.spyOn(control, 'reserve').mockImplementation(async (...args) => ({ ...(await reserve(...args)), at: dated }));
    try {
      await ask(t.http, member.token).expect(200);
    } finally {
      spy.mockRestore();
    }
    const rows = await t.app.get(InferencesRepository).listByTenantSince(tenant.id, new Date(dated.getTime() - DAY_MS));
    const answer = rows.find((row) => row.stage === 'answer');
    expect(answer?.createdAt.toISOString()).toBe(dated.toISOString());
  });

  it('rebuilds flushed counters from the ledger: a reached cap still refuses, nothing forgotten, nothing doubled', async () => {
    const { tenant, member } = await tenantWith({ monthlyCostCapMicros: 1_000_000_000 });
    for (let i = 0; i < 3; i++) await ask(t.http, member.token).expect(200);
    const before = await spendOf(tenant.id);
    expect(before.ledgerDay).toBeGreaterThan(4_500); // three answers at 1_500 µ$ and the embeddings
    expect(before).toEqual({ ledgerDay: before.ledgerDay, ledgerMonth: before.ledgerDay, counterDay: before.ledgerDay, counterMonth: before.ledgerDay });

    await flushTenant(tenant.id);
    expect((await spendOf(tenant.id)).counterDay).toBe(0);
    await ask(t.http, member.token).expect(200);
    const after = await spendOf(tenant.id);
    expect(after.ledgerDay).toBeGreaterThan(before.ledgerDay);
    expect(after).toEqual({ ledgerDay: after.ledgerDay, ledgerMonth: after.ledgerDay, counterDay: after.ledgerDay, counterMonth: after.ledgerDay });

    // The cap is reached, then the store loses the counters: the spend is seen again.
    await setTenantLimits(t.app, tenant.id, { dailyCostCapMicros: after.ledgerDay });
    await flushTenant(tenant.id);
    const refused = await ask(t.http, member.token).expect(402);
    expect(refused.body.detail).toEqual({ error: 'cost_cap_exceeded', cap: after.ledgerDay / 1e6, spent: expect.any(Number), retry_after: expect.any(Number) });
    expect(Math.round(refused.body.detail.spent * 1e6)).toBe(after.ledgerDay);
    // Rebuilt once, by set-if-absent: a second rebuild attempt adds nothing.
    await flushTenant(tenant.id);
    await Promise.all([ask(t.http, member.token), ask(t.http, member.token), ask(t.http, member.token)]);
    expect(await spendOf(tenant.id)).toEqual({ ledgerDay: after.ledgerDay, ledgerMonth: after.ledgerDay, counterDay: after.ledgerDay, counterMonth: after.ledgerDay });
  });

  it('enforces the ledger when the counter is below it (spend the counter never saw)', async () => {
    const { tenant, member } = await tenantWith({ dailyCostCapMicros: 100_000 });
    await ask(t.http, member.token).expect(200);
    // A call on record that the counter missed (as after a failover that dropped writes).
    const rows = t.app.get(InferencesRepository);
    const key = { tenantId: tenant.id, requestId: `lost-${randomUUID()}`, callIndex: 0 };
    await rows.begin({ ...key, kind: 'query', stage: 'answer', provider: 'anthropic', model: 'm', billedTo: 'platform', estimatedCostMicros: 100_000 });
    await rows.complete(key, { status: 'ok', tokensIn: 1, tokensOut: 1, tokensThinking: 0, costMicros: 100_000, latencyMs: 1 });
    const spend = await spendOf(tenant.id);
    expect(spend.counterDay).toBeLessThan(spend.ledgerDay);
    // The ledger is compared with the counter at most every LEDGER_CHECK_TTL_MS per process.
    await new Promise((resolve) => setTimeout(resolve, LEDGER_CHECK_TTL_MS + 100));
    const refused = await ask(t.http, member.token).expect(402);
    expect(refused.body.detail.error).toBe('cost_cap_exceeded');
    expect(Math.round(refused.body.detail.spent * 1e6)).toBeGreaterThanOrEqual(spend.ledgerDay);
    expect(double.anthropic.requests).toHaveLength(1);
  });

  it('rebuilds the platform day counter from platform-billed rows', async () => {
    // A SpendControl on a store of its own (a restarted in-process store), over this app's
    // database: the shared Redis platform key is never touched.
    const ownStore = new MemoryLimitStore();
    const control = new SpendControl(
      ownStore,
      t.app.get(TenantsRepository),
      t.app.get(PlatformLimitsRepository),
      t.app.get(SpendLedgerRepository),
      t.settings.limits,
      t.app.get(QuestionCountsRepository),
    );
    const { tenant } = await tenantWith({});
    const { now, day } = await windows();
    const platformLedger = await t.app.get(SpendLedgerRepository).platformSpend(day);
    expect(platformLedger).toBeGreaterThan(0);
    const reservation = await control.reserve(tenant.id, randomUUID(), 50);
    await reservation.settle(20);
    expect(await ownStore.committed(limitKeys.platformSpendDay(utcDay(now)))).toBe(platformLedger + 20);
  });

  it('settles a failed or timed-out model call to what was billed and frees its reservation', async () => {
    const { tenant, member } = await tenantWith({ dailyCostCapMicros: 1_000_000 });
    const rowsOf = async () =>
      (await t.app.get(InferencesRepository).listByTenantSince(tenant.id, new Date(Date.now() - 3_600_000))).filter((r) => r.stage === 'answer');

    double.anthropic.reply({ status: 500 });
    await ask(t.http, member.token).expect(502);
    double.anthropic.reply({ text: '{"answer":"late","cited":[]}', delayMs: 2_500 });
    const timedOut = await ask(t.http, member.token);
    expect(timedOut.status).toBeGreaterThanOrEqual(500);
    // Cut at max_tokens: the provider billed it, so it costs what it billed.
    double.anthropic.reply({ text: '{"answer":"cut', truncated: true, usage: { input_tokens: 1000, output_tokens: 2048 } });
    await ask(t.http, member.token).expect(502);

    const rows = await rowsOf();
    expect(rows.map((r) => r.status)).toEqual(['error', 'error', 'error']);
    expect(rows.slice(0, 2).map((r) => r.costMicros)).toEqual([0, 0]);
    expect(rows[2].costMicros).toBeGreaterThan(0);
    const spend = await spendOf(tenant.id);
    expect(spend.counterDay).toBe(spend.ledgerDay);
    expect(spend.counterMonth).toBe(spend.ledgerMonth);
  });

  it('10^4 settlements sum to the counters and the ledger to the micro-dollar', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    bulkTenantId = tenant.id;
    const control = t.app.get(SpendControl);
    const database = t.app.get<Database>(DATABASE);
    const n = 10_000;
    const costs = Array.from({ length: n }, () => randomInt(0, 100_000));
    const requestId = `bulk-${randomUUID()}`;
    for (let start = 0; start < n; start += 100) {
      await Promise.all(
        costs.slice(start, start + 100).map(async (cost) => {
          const reservation = await control.reserve(tenant.id, randomUUID(), cost + randomInt(0, 10_000));
          await reservation.settle(cost);
        }),
      );
    }
    for (let start = 0; start < n; start += 1_000) {
      await database.db.insert(inferences).values(
        costs.slice(start, start + 1_000).map((cost, i) => ({
          tenantId: tenant.id,
          requestId,
          callIndex: start + i,
          kind: 'query',
          stage: 'answer',
          provider: 'anthropic',
          model: 'm',
          billedTo: 'own_key' as const,
          status: 'ok' as const,
          costMicros: cost,
          estimatedCostMicros: cost,
        })),
      );
    }
    const total = costs.reduce((a, b) => a + b, 0);
    expect(await spendOf(tenant.id)).toEqual({ ledgerDay: total, ledgerMonth: total, counterDay: total, counterMonth: total });
    // And a rebuild from that ledger lands on the same total.
    await flushTenant(tenant.id);
    await (await control.reserve(tenant.id, randomUUID(), 1)).settle(0);
    expect(await spendOf(tenant.id)).toEqual({ ledgerDay: total, ledgerMonth: total, counterDay: total, counterMonth: total });
  });

  it('reads spend with one statement per scope, over the inferences indexes (EXPLAIN)', async () => {
    // On the 10^4 rows of the test above, with statistics, as the planner would see a busy tenant.
    const tenantId = bulkTenantId ?? (await createTenant(t.app)).id;
    const { day, month } = await windows();
    const ledger = t.app.get(SpendLedgerRepository);
    const database = t.app.get<Database>(DATABASE);
    await database.db.execute(sql`ANALYZE inferences`);
    // The whole table is still small enough for a seq scan to win: turned off to see the index.
    const plan = async (query: ReturnType<SpendLedgerRepository['platformSpendQuery']>) =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL enable_seqscan = off`);
        const rows = await queryRows<{ 'QUERY PLAN': string }>(tx, sql`EXPLAIN ${query}`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    expect(await plan(ledger.tenantSpendQuery(tenantId, day, month))).toMatch(/Index.* (on|using) inferences_tenant_created_idx/);
    expect(await plan(ledger.platformSpendQuery(day))).toMatch(/Index.* (on|using) inferences_platform_created_idx/);
  });

  describe('two app instances sharing Redis and Postgres', () => {
    let second: INestApplication | undefined;
    // Only Redis is shared between processes; the in-process store and PGlite belong to one app.
    const itShared = onRedis ? it : it.skip;

    beforeAll(async () => {
      if (!onRedis) return;
      second = await createApp(t.settings);
      await second.init();
    });
    afterAll(async () => {
      await second?.close();
    });

    itShared('50 concurrent questions, 25 through each, admit at most what the cap fits and never overspend it', async () => {
      // Each answer reserves its worst case (its counted input + 2048 output tokens ≈ 10.3k µ$)
      // and is billed nearly that (10 in + 2000 out = 10_010 µ$), so the cap of 40_000 fits
      // k = 3 answers whether they come at once or one after another.
      const cap = 40_000;
      const n = 50;
      const { tenant, member } = await tenantWith({ dailyCostCapMicros: cap });
      double.anthropic.reply({ text: '{"answer":"x","cited":[]}', usage: { input_tokens: 10, output_tokens: 2000 }, delayMs: 50 });
      const http2 = request(second!.getHttpServer());
      const responses = await Promise.all(Array.from({ length: n }, (_, i) => ask(i % 2 ? http2 : t.http, member.token)));
      const admitted = responses.filter((r) => r.status === 200).length;
      expect(admitted).toBeGreaterThan(0);
      expect(responses.filter((r) => r.status === 402)).toHaveLength(n - admitted);
      const rows = await t.app.get(InferencesRepository).listByTenantSince(tenant.id, new Date(Date.now() - 3_600_000));
      expect(rows.filter((r) => r.status === 'pending')).toHaveLength(0);
      // k: an answer is reserved only while everything admitted before it (each counted at its
      // cost or its worst case) and its own worst case fit under the cap.
      const answers = rows.filter((r) => r.stage === 'answer');
      expect(answers).toHaveLength(admitted);
      const worstCase = Math.min(...answers.map((r) => r.estimatedCostMicros));
      const billedEach = Math.min(...answers.map((r) => r.costMicros));
      expect(billedEach).toBe(10_010);
      expect(worstCase).toBeGreaterThanOrEqual(billedEach);
      const k = Math.floor((cap - worstCase) / billedEach) + 1;
      expect(k).toBe(3);
      expect(admitted).toBeLessThanOrEqual(k);
      const settled = rows.reduce((sum, row) => sum + row.costMicros, 0);
      expect(settled).toBeLessThanOrEqual(cap);
      const spend = await spendOf(tenant.id);
      expect(spend.ledgerDay).toBe(settled);
      expect(spend.counterDay).toBe(settled);
    });
  });
});
