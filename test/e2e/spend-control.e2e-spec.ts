import { randomUUID } from 'node:crypto';
import { InferencesRepository, TenantsRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { OwnKeysService } from '@loci/llm';
import { LIMIT_STORE, LimitStore, limitKeys, SpendControl, utcDay, utcMonth } from '@loci/quota';
import { createApiKey, createLimitedTenant, createTenant, createUser, LlmDouble, llmDoubleEnv, recordStatements, setPlatformCap, setTenantLimits, startLlmDouble, TenantLimits } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Spend control through HTTP with the real SDKs against the double: the contract's 402 and 429
 * bodies and headers, concurrency, quota, and that caps hold under concurrent load.
 */
describe('spend control', () => {
  let double: LlmDouble;
  let t: TestApp;
  let store: LimitStore;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    store = t.app.get(LIMIT_STORE);
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });

  const tenantWith = (limits: TenantLimits, billing?: 'platform' | 'own_key') => createLimitedTenant(t.app, limits, billing);

  /** Spend already settled today (and this month) in the tenant's counters. */
  async function spend(tenantId: string, micros: number, scopes: 'day' | 'month' | 'both' = 'both') {
    const now = await store.now();
    const keys = [
      ...(scopes !== 'month' ? [{ key: limitKeys.tenantSpendDay(tenantId, utcDay(now)), capMicros: null, ttlMs: 86_400_000 }] : []),
      ...(scopes !== 'day' ? [{ key: limitKeys.tenantSpendMonth(tenantId, utcMonth(now)), capMicros: null, ttlMs: 86_400_000 * 31 }] : []),
    ];
    const id = `seed-${randomUUID()}`;
    await store.reserve(id, keys, micros, 60_000);
    await store.settle(id, keys, micros);
  }

  const ask = (token: string, body: object = { query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] }) =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send(body);

  it('refuses with 402 cost_cap_exceeded once the daily cap is reached', async () => {
    const { tenant, member } = await tenantWith({ dailyCostCapMicros: 5_000_000 });
    await spend(tenant.id, 5_000_000, 'day');
    const response = await ask(member.token).expect(402);
    // spent: what was seeded plus the few µ$ of embeddings its document cost to ingest
    expect(response.body).toEqual({ detail: { error: 'cost_cap_exceeded', cap: 5, spent: expect.any(Number), retry_after: expect.any(Number) } });
    expect(response.body.detail.spent).toBeGreaterThanOrEqual(5);
    expect(response.body.detail.spent).toBeLessThan(5.001);
    expect(response.headers['retry-after']).toBe(String(response.body.detail.retry_after));
    expect(response.body.detail.retry_after).toBeLessThanOrEqual(86_400);
    expect(double.anthropic.requests).toHaveLength(0);
  });

  it('answers with the monthly refusal when both caps are used up', async () => {
    const { tenant, member } = await tenantWith({ dailyCostCapMicros: 1_000_000, monthlyCostCapMicros: 2_000_000 });
    await spend(tenant.id, 2_000_000);
    const response = await ask(member.token).expect(402);
    expect(response.body.detail).toEqual({ error: 'cost_cap_monthly_exceeded', cap: 2, spent: expect.any(Number), retry_after: expect.any(Number) });
    expect(response.body.detail.spent).toBeGreaterThanOrEqual(2);
    expect(response.body.detail.retry_after).toBeGreaterThan(0);
    expect(response.body.detail.retry_after).toBeLessThanOrEqual(31 * 86_400);
  });

  it('pauses platform-billed tenants at the platform budget, with no cap in the body, but not tenants on their own key', async () => {
    const onPlatform = await tenantWith({});
    const ownKey = await tenantWith({}, 'own_key');
    await t.app.get(OwnKeysService).setKey(ownKey.tenant.id, 'anthropic', 'tenant-key');
    await t.app.get(OwnKeysService).setKey(ownKey.tenant.id, 'openai', 'tenant-key');
    const now = await store.now();
    const platformKey = { key: limitKeys.platformSpendDay(utcDay(now)), capMicros: null, ttlMs: 86_400_000 };
    await setPlatformCap(t.app, (await store.committed(platformKey.key)) + 1);
    try {
      await store.reserve('platform-seed', [platformKey], 1, 60_000);
      await store.settle('platform-seed', [platformKey], 1);
      const paused = await ask(onPlatform.member.token).expect(402);
      expect(paused.body).toEqual({ detail: { error: 'platform_budget_paused', retry_after: expect.any(Number) } });
      await ask(ownKey.member.token).expect(200);
    } finally {
      await setPlatformCap(t.app, null);
    }
  });

  it('never limits an API-key question', async () => {
    const { tenant } = await tenantWith({ dailyCostCapMicros: 1, dailyQueryQuota: 0, maxConcurrentQueries: 1 });
    await spend(tenant.id, 10);
    const key = await createApiKey(t.app, tenant.id);
    for (let i = 0; i < 3; i++) await ask(key.key, { query: 'Where does Alice work?' }).expect(200);
  });

  it('counts the daily quota of model-answered questions, with RateLimit headers, then 429', async () => {
    const { member } = await tenantWith({ dailyQueryQuota: 2 });
    const first = await ask(member.token).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"daily";q=2;w=86400');
    expect(first.headers['ratelimit']).toMatch(/^"daily";r=1;t=\d+$/);
    await ask(member.token).expect(200);
    const refused = await ask(member.token).expect(429);
    expect(refused.body).toEqual({ detail: { error: 'daily_query_quota_exceeded', limit: 2, retry_after: expect.any(Number) } });
    expect(refused.headers['retry-after']).toBe(String(refused.body.detail.retry_after));
  });

  it('gives the quota back to questions no model answered: nothing to answer from, a failed call, an unknown dataset', async () => {
    const { tenant, member } = await tenantWith({ dailyQueryQuota: 1 });
    const quotaKey = async () => limitKeys.tenantQuotaDay(tenant.id, utcDay(await store.now()));
    // An empty graph: the fixed answer, no model, and the header says the question was not counted.
    const empty = await createTenant(t.app);
    await setTenantLimits(t.app, empty.id, { dailyQueryQuota: 1 });
    const emptyMember = await createUser(t.app, empty.id, 'member');
    for (let i = 0; i < 2; i++) {
      const unanswered = await ask(emptyMember.token).expect(200);
      expect(unanswered.body.metadata).toMatchObject({ model: 'context-mode-no-llm', no_answer_reason: 'empty_graph' });
      expect(unanswered.headers['ratelimit']).toMatch(/^"daily";r=1;t=\d+$/);
    }
    // The answer call fails (502): not answered, not counted.
    double.anthropic.reply({ status: 500 });
    await ask(member.token).expect(502);
    expect(await store.quotaCount(await quotaKey())).toBe(0);
    // gb: a dataset the user does not have (404), then one the model answers, which counts.
    const key = await createApiKey(t.app, tenant.id);
    const gb = (body: object) => t.http.post('/v1/gb/query').set('Authorization', `Bearer ${key.key}`).send(body);
    await gb({ user_id: 'nobody', query: 'Where does Alice work?' }).expect(404);
    expect(await store.quotaCount(await quotaKey())).toBe(0);
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}' });
    await ask(member.token).expect(200);
    expect(await store.quotaCount(await quotaKey())).toBe(1);
    await ask(member.token).expect(429);
  });

  it('admits exactly the concurrency limit; the others get 429 and do not use the quota', async () => {
    const { tenant, member } = await tenantWith({ maxConcurrentQueries: 2, dailyQueryQuota: 100 });
    // The answers are held until the eight refusals are back, so the two admitted are still
    // running when the others arrive, however slow the machine.
    let releaseAnswers!: () => void;
    const held = new Promise<void>((resolve) => (releaseAnswers = resolve));
    double.anthropic.reply({ text: '{"answer":"slow","cited":[]}', hold: held });
    const done: Array<{ status: number }> = [];
    const pending = Array.from({ length: 10 }, () => ask(member.token).then((r) => (done.push(r), r)));
    for (const deadline = Date.now() + 30_000; done.length < 8 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(done.map((r) => r.status)).toEqual(Array(8).fill(429));
    // The two admitted reach the model (after their retrieval) and wait there.
    for (const deadline = Date.now() + 30_000; double.anthropic.requests.length < 2 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    expect(double.anthropic.requests).toHaveLength(2);
    releaseAnswers();
    const responses = await Promise.all(pending);
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    const refused = responses.filter((r) => r.status === 429);
    expect(refused).toHaveLength(8);
    for (const r of refused) {
      expect(r.body).toEqual({ detail: { error: 'too_many_concurrent_queries', limit: 2, retry_after: 10 } });
      expect(r.headers['retry-after']).toBe('10');
    }
    const now = await store.now();
    expect(await store.quotaCount(limitKeys.tenantQuotaDay(tenant.id, utcDay(now)))).toBe(2);
    // the slots were released: a new question is admitted
    double.anthropic.reply({ text: '{"answer":"ok","cited":[]}' });
    await ask(member.token).expect(200);
  });

  it('never lets concurrent questions overspend a cap', async () => {
    // Each answer call reserves its worst case (input + 2048 output tokens at $5/M ≈ 10.3k µ$)
    // and settles to 1000 in + 100 out = 1_500 µ$. A cap of 40_000 µ$ fits a few at a time.
    const cap = 40_000;
    const { tenant, member } = await tenantWith({ dailyCostCapMicros: cap });
    double.anthropic.reply({ text: '{"answer":"x","cited":[]}', usage: { input_tokens: 1000, output_tokens: 100 }, delayMs: 50 });
    const responses = await Promise.all(Array.from({ length: 50 }, () => ask(member.token)));
    const admitted = responses.filter((r) => r.status === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(responses.filter((r) => r.status === 402).length).toBe(50 - admitted);
    const rows = await t.app.get(InferencesRepository).listByTenantSince(tenant.id, new Date(Date.now() - 3_600_000));
    const settled = rows.reduce((sum, row) => sum + row.costMicros, 0);
    expect(settled).toBeLessThanOrEqual(cap);
    const now = await store.now();
    expect(await store.committed(limitKeys.tenantSpendDay(tenant.id, utcDay(now)))).toBe(settled);
  });

  it('answers gb calls over a cap in the gb shape', async () => {
    const { tenant } = await tenantWith({ dailyCostCapMicros: 1_000 });
    await spend(tenant.id, 1_000, 'day');
    const key = await createApiKey(t.app, tenant.id);
    const response = await t.http
      .post('/v1/gb/remember')
      .set('Authorization', `Bearer ${key.key}`)
      .send({ user_id: 'u', text: 'Alice works at Acme.' })
      .expect(402);
    expect(response.body).toEqual({ error: 'cost_cap_exceeded', cap: 0.001, spent: expect.any(Number), retry_after: expect.any(Number) });
    expect(response.headers['retry-after']).toBe(String(response.body.retry_after));
  });

  it('defers ingestion over a cap, and resumes it when the cap is raised', async () => {
    const tenant = await createTenant(t.app);
    // A cap of 0: not even the embeddings of one chunk (~1 µ$) fit.
    await setTenantLimits(t.app, tenant.id, { dailyCostCapMicros: 0 });
    const operator = await createUser(t.app, null, 'operator');
    // Extraction through the double costs money: with a cap of 1 µ$ it cannot run.
    double.anthropic.reply({ text: '{"entities":[],"relations":[]}' });
    const documents = t.app.get(DocumentsService);
    const { document } = await documents.submit(tenant.id, { name: 'd', mimeType: 'text/plain', text: 'Zoe works at Initech.' });
    const worker = t.app.get(IngestWorker);
    await worker.drain();
    const deferred = await documents.get(tenant.id, document.id);
    expect(deferred.document.status).toBe('deferred');
    expect(deferred.document.statusReason).toMatch(/cost cap/);
    await t.http
      .patch(`/v1/admin/tenants/${tenant.id}/limits`)
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ daily_cost_cap_usd: 10 })
      .expect(200);
    await worker.drain();
    expect((await documents.get(tenant.id, document.id)).document.status).toBe('processed');
  });

  it("admits an API-key request on the tenant row read with its key, without reading it again", async () => {
    const { tenant } = await tenantWith({ maxConcurrentQueries: 5 });
    const row = (await t.app.get(TenantsRepository).findById(tenant.id))!;
    const spendControl = t.app.get(SpendControl);
    const client = { tenantId: tenant.id, clientKind: 'key' as const, clientId: randomUUID() };
    const recorder = recordStatements(t.app);
    try {
      const withRow = await spendControl.admit({ ...client, requestId: randomUUID(), tenant: row }, { countsQuota: false });
      await withRow.release();
      expect(recorder.tenantReads()).toEqual([]);
      await spendControl.limitsChanged(); // the row is cached from the tenant's ingestion: forget it
      const withoutRow = await spendControl.admit({ ...client, requestId: randomUUID() }, { countsQuota: false });
      await withoutRow.release();
      expect(recorder.tenantReads()).toHaveLength(1);
    } finally {
      recorder.stop();
    }
  });
});
