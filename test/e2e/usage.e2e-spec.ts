import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, InferencesRepository, queryRows, RequestLogsRepository } from '@loci/db';
import { createApiKey, createTenantWithPeople, createUser, setTenantLimits, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

describe('usage', () => {
  let t: TestApp;
  let operator: TestUser;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;

  /** One finished model call in the ledger, as the gateway writes it. */
  async function call(tenantId: string, costMicros: number, billedTo: 'platform' | 'own_key', tokens = 100) {
    const ledger = t.app.get(InferencesRepository);
    const key = { tenantId, requestId: `req-${randomUUID()}`, callIndex: 0 };
    await ledger.begin({ ...key, kind: 'query', stage: 'answer', provider: 'anthropic', model: 'claude-haiku-4-5', billedTo, estimatedCostMicros: costMicros * 10 });
    await ledger.complete(key, { status: 'ok', tokensIn: tokens, tokensOut: tokens / 10, tokensThinking: 0, costMicros, latencyMs: 5 });
    await t.app.get(RequestLogsRepository).insert({ tenantId, requestId: key.requestId, route: '/v1/query', principalKind: 'jwt', steps: {} });
  }

  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.app, null, 'operator');
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await call(a.tenant.id, 1_500, 'platform');
    await call(a.tenant.id, 2_500, 'platform');
    await call(a.tenant.id, 700, 'own_key');
    await call(b.tenant.id, 9_000, 'platform');
    // a call still in flight counts at its worst case
    await t.app.get(InferencesRepository).begin({
      tenantId: a.tenant.id, requestId: `req-${randomUUID()}`, callIndex: 0, kind: 'query', stage: 'answer',
      provider: 'anthropic', model: 'claude-haiku-4-5', billedTo: 'platform', estimatedCostMicros: 10_000,
    });
  });
  afterAll(() => t.close());

  const today = new Date().toISOString().slice(0, 10);

  it('reports per tenant per day to operators: questions, calls, tokens, cost by payer', async () => {
    const response = await t.http.get(`/v1/admin/usage?tenant_id=${a.tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(response.body.items).toEqual([
      {
        tenant_id: a.tenant.id,
        day: today,
        questions: 3,
        model_calls: 4,
        tokens_in: 300,
        tokens_out: 30,
        cost_usd: { platform: 0.014, own_key: 0.0007 },
        refusals: {},
        // No document taken in that day (ingestion quotas: test/e2e/ingestion-quotas.e2e-spec.ts).
        documents: 0,
        ingested_mb: 0,
      },
    ]);
    const all = await t.http.get('/v1/admin/usage').set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(all.body.items.map((i: { tenant_id: string }) => i.tenant_id)).toEqual(expect.arrayContaining([a.tenant.id, b.tenant.id]));
  });

  it("shows a tenant admin its own usage only, and today's spend on the tenant", async () => {
    const own = await t.http.get(`/v1/usage?tenant_id=${b.tenant.id}`).set('Authorization', `Bearer ${a.admin.token}`).expect(200);
    expect(own.body.items.map((i: { tenant_id: string }) => i.tenant_id)).toEqual([a.tenant.id]);
    await t.http.get('/v1/usage').set('Authorization', `Bearer ${a.member.token}`).expect(403);
    await t.http.get('/v1/admin/usage').set('Authorization', `Bearer ${a.admin.token}`).expect(403);
    const tenant = await t.http.get(`/v1/admin/tenants/${a.tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(tenant.body.spend).toEqual({ today_usd: 0.0147, this_month_usd: 0.0147 });
  });

  it("lists tenants with today's and this month's spend in one page, to operators only", async () => {
    const quiet = await createTenantWithPeople(t.app);
    // A call of last month counts in neither window.
    await call(quiet.tenant.id, 4_000, 'platform');
    const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
    await queryRows(
      t.app.get<Database>(DATABASE).db,
      sql`UPDATE inferences SET created_at = ${new Date(monthStart.getTime() - 3_600_000).toISOString()}::timestamptz
          WHERE tenant_id = ${quiet.tenant.id}::uuid`,
    );
    const list = await t.http.get('/v1/admin/tenants?limit=200').set('Authorization', `Bearer ${operator.token}`).expect(200);
    const spendOf = (id: string) => list.body.items.find((item: { id: string }) => item.id === id)?.spend;
    expect(spendOf(a.tenant.id)).toEqual({ today_usd: 0.0147, this_month_usd: 0.0147 });
    expect(spendOf(b.tenant.id)).toEqual({ today_usd: 0.009, this_month_usd: 0.009 });
    expect(spendOf(quiet.tenant.id)).toEqual({ today_usd: 0, this_month_usd: 0 });
    // Each item is what one tenant's GET says (other tests' tenants may spend meanwhile: ours only).
    for (const id of [a.tenant.id, b.tenant.id, quiet.tenant.id]) {
      const one = await t.http.get(`/v1/admin/tenants/${id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
      expect(list.body.items.find((item: { id: string }) => item.id === id)).toEqual(one.body);
    }
    for (const caller of [{ Authorization: `Bearer ${a.admin.token}` }, { Authorization: `Bearer ${a.member.token}` }, { 'X-API-Key': a.apiKey.key }]) {
      const refused = await t.http.get('/v1/admin/tenants').set(caller).expect(403);
      expect(refused.body).toEqual({ error: { code: 'forbidden', message: expect.any(String) }, request_id: expect.any(String) });
    }
  });

  it('counts requests refused by a spend limit, by kind, on both surfaces, per tenant', async () => {
    const c = await createTenantWithPeople(t.app);
    const limits = { dailyCostCapMicros: 0, monthlyCostCapMicros: null, dailyQueryQuota: null, maxConcurrentQueries: null };
    await setTenantLimits(t.app, c.tenant.id, limits);
    const ask = () => t.http.post('/v1/query').set('Authorization', `Bearer ${c.member.token}`).send({ query: 'Where does Alice work?' });
    await ask().expect(402);
    await ask().expect(402);
    const key = await createApiKey(t.app, c.tenant.id);
    await t.http.post('/v1/gb/query').set('Authorization', `Bearer ${key.key}`).send({ user_id: 'u1', query: 'Where does Alice work?' }).expect(402);
    // An API-key context question spends nothing and is never refused.
    await t.http.post('/v1/query').set('Authorization', `Bearer ${key.key}`).send({ query: 'Where does Alice work?' }).expect(200);
    await setTenantLimits(t.app, c.tenant.id, { ...limits, dailyCostCapMicros: null, dailyQueryQuota: 0 });
    await ask().expect(429);

    const usage = await t.http.get('/v1/usage').set('Authorization', `Bearer ${c.admin.token}`).expect(200);
    expect(usage.body.items).toEqual([
      expect.objectContaining({ tenant_id: c.tenant.id, day: today, refusals: { cost_cap_exceeded: 3, daily_query_quota_exceeded: 1 } }),
    ]);
    const other = await t.http.get('/v1/usage').set('Authorization', `Bearer ${b.admin.token}`).expect(200);
    expect(other.body.items).toEqual([expect.objectContaining({ tenant_id: b.tenant.id, refusals: {} })]);
    const operatorView = await t.http.get(`/v1/admin/usage?tenant_id=${c.tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(operatorView.body.items).toEqual(usage.body.items);
  });

  it('validates the range', async () => {
    const auth = { Authorization: `Bearer ${operator.token}` };
    await t.http.get('/v1/admin/usage?from=2026-02-01&to=2026-01-01').set(auth).expect(400);
    await t.http.get('/v1/admin/usage?from=yesterday').set(auth).expect(400);
    await t.http.get('/v1/admin/usage?tenant_id=nope').set(auth).expect(400);
    const empty = await t.http.get('/v1/admin/usage?from=2020-01-01&to=2020-01-02').set(auth).expect(200);
    expect(empty.body).toEqual({ from: '2020-01-01', to: '2020-01-02', items: [] });
  });
});
