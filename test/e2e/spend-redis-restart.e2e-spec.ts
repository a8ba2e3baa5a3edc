import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { SpendLedgerRepository, UsageRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { LIMIT_STORE, LimitStore, limitKeys, utcDay, utcMonth } from '@loci/quota';
import {
  createApiKey,
  createTenant,
  createUser,
  freePort,
  hasRedisServer,
  killRedis,
  LlmDouble,
  llmDoubleEnv,
  setTenantLimits,
  startLlmDouble,
  startRedis,
} from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The "Redis flushed and restarted mid-run": a real Redis process killed (SIGKILL, it
 * keeps nothing on disk) while the app is running, then started again empty. While it is down,
 * spending requests fail closed (503) and free ones keep working; once it is back the counters
 * are rebuilt from the ledger (nothing forgotten, nothing doubled), the Lua scripts are loaded
 * again (NOSCRIPT), and the caps hold at the ledger's spend.
 */
(hasRedisServer() ? describe : describe.skip)('spend control across a Redis restart (private redis-server)', () => {
  let double: LlmDouble;
  let t: TestApp;
  let store: LimitStore;
  let redis: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      REDIS_URL: `redis://127.0.0.1:${port}`,
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    store = t.app.get(LIMIT_STORE);
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
    if (redis) await killRedis(redis);
  });

  it('fails closed while Redis is down, then rebuilds the counters from the ledger and enforces the cap', async () => {
    const tenant = await createTenant(t.app, { billing: 'platform' });
    const limits = { dailyCostCapMicros: null, monthlyCostCapMicros: null, dailyQueryQuota: null, maxConcurrentQueries: 4 };
    await setTenantLimits(t.app, tenant.id, limits);
    await t.app.get(DocumentsService).submit(tenant.id, { name: 'd', mimeType: 'text/plain', text: `Alice works at Acme ${randomUUID()}.` });
    await t.app.get(IngestWorker).drain();
    const member = await createUser(t.app, tenant.id, 'member');
    const apiKey = await createApiKey(t.app, tenant.id);
    const ask = () => t.http.post('/v1/query').set('Authorization', `Bearer ${member.token}`).send({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] });
    const dayStart = new Date(new Date().toISOString().slice(0, 10));
    const day = { from: dayStart, to: new Date(dayStart.getTime() + 86_400_000) };
    // What the caps count: the ledger rows that are spend-limited, today.
    const ledgerToday = async () => (await t.app.get(SpendLedgerRepository).tenantSpend(tenant.id, day, day)).dayMicros;
    const usageToday = async () => {
      const [usage] = await t.app.get(UsageRepository).byTenantDay({ ...day, tenantId: tenant.id });
      return usage.costPlatformMicros;
    };

    await ask().expect(200);
    await ask().expect(200);
    const before = await ledgerToday();
    expect(before).toBeGreaterThan(0);

    await killRedis(redis);
    const down = await ask();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: { error: 'limits_unavailable' } });
    expect(Number(down.headers['retry-after'])).toBeGreaterThan(0);
    expect(await ledgerToday()).toBe(before); // the refused question spent nothing
    // An API-key context question keeps working. Its question embedding is a real (platform)
    // cost, on record in usage, but outside the caps: the contract says it spends nothing.
    const usageBefore = await usageToday();
    await t.http.post('/v1/query').set('Authorization', `Bearer ${apiKey.key}`).send({ query: 'Where does Alice work?', context_only: true }).expect(200);
    expect(await usageToday()).toBeGreaterThan(usageBefore);
    expect(await ledgerToday()).toBe(before);

    redis = await startRedis(port); // empty: no counters, no slots, no scripts
    let status = 503;
    for (const deadline = Date.now() + 20_000; status === 503 && Date.now() < deadline; ) {
      status = (await ask()).status;
      if (status === 503) await sleep(200);
    }
    expect(status).toBe(200);

    // The rebuilt counters hold the ledger's spend: the two questions before the restart and the
    // one after, each once.
    const spent = await ledgerToday();
    expect(spent).toBeGreaterThan(before);
    const now = await store.now();
    await expect(store.committed(limitKeys.tenantSpendDay(tenant.id, utcDay(now)))).resolves.toBe(spent);
    await expect(store.committed(limitKeys.tenantSpendMonth(tenant.id, utcMonth(now)))).resolves.toBe(spent);

    // A cap at exactly what was spent refuses the next question, reporting the ledger's spend.
    await setTenantLimits(t.app, tenant.id, { ...limits, dailyCostCapMicros: spent });
    const refused = await ask();
    expect(refused.status).toBe(402);
    expect(refused.body.detail).toMatchObject({ error: 'cost_cap_exceeded', spent: spent / 1_000_000 });
  });
});
