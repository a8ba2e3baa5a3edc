import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey, createTenantWithPeople, createUser, parsePrometheusText, sampleValue, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Request rates (issue 34.3) on the stores the environment selects (PostgreSQL + Redis, or the
 * embedded default): a tenant's token bucket, shared by its keys and users, on every metered
 * surface (/v1/query, gb query and remember, uploads, MCP tools); an API key's own rate within
 * it; the refusal in each surface's shape with Retry-After; RateLimit headers on success; and
 * the refusals in usage and metrics. Buckets refill at 1 a minute here, so no test waits on one.
 */
describe('request rates', () => {
  let t: TestApp;
  let operator: TestUser;
  let baseUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({ LOCI_METRICS_TOKEN: 'metrics-secret-0123456789' });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  const setRate = (tenantId: string, limits: { requests_per_minute: number | null; request_burst?: number | null }) =>
    t.http.patch(`/v1/admin/tenants/${tenantId}/limits`).set('Authorization', `Bearer ${operator.token}`).send(limits).expect(200);
  const ask = (credential: string) =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${credential}`).send({ query: 'Where does Alice work?', context_only: true });

  it('gives an API key its tenant burst, says what is left, then refuses with 429 and Retry-After', async () => {
    const a = await createTenantWithPeople(t.app);
    const b = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 3 });
    await setRate(b.tenant.id, { requests_per_minute: 1, request_burst: 3 });

    for (const left of [2, 1, 0]) {
      const ok = await ask(a.apiKey.key).expect(200);
      // A burst of 3 at 1 a minute refills in 180 s.
      expect(ok.headers['ratelimit-policy']).toBe('"tenant";q=3;w=180');
      expect(ok.headers.ratelimit).toMatch(new RegExp(`^"tenant";r=${left};t=\\d+$`));
    }
    const refused = await ask(a.apiKey.key).expect(429);
    expect(refused.body.detail).toEqual({ error: 'rate_limit_exceeded', scope: 'tenant', limit: 1, burst: 3, retry_after: expect.any(Number) });
    expect(refused.body.detail.retry_after).toBeGreaterThan(50);
    expect(refused.body.detail.retry_after).toBeLessThanOrEqual(60);
    expect(refused.headers['retry-after']).toBe(String(refused.body.detail.retry_after));

    // The bucket is the tenant's: its dashboard users share it; another tenant's is untouched.
    await t.http.post('/v1/query').set('Authorization', `Bearer ${a.member.token}`).send({ query: 'Where does Alice work?' }).expect(429);
    await ask(b.apiKey.key).expect(200);
    await t.http.post('/v1/query').set('Authorization', `Bearer ${b.member.token}`).send({ query: 'Where does Alice work?', context_only: true }).expect(200);
  });

  it('meters gb query, gb remember and uploads from the same bucket, each refusal in its surface shape', async () => {
    const a = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 3 });
    const key = `Bearer ${a.apiKey.key}`;
    await t.http.post('/v1/gb/remember').set('Authorization', key).send({ user_id: 'u1', text: 'Alice works at Acme.' }).expect(200);
    await t.http.post('/v1/gb/query').set('Authorization', key).send({ user_id: 'u1', query: 'Where does Alice work?' }).expect(200);
    const uploaded = await t.http.post('/v1/documents').set('Authorization', key).send({ name: 'a.txt', text: 'Bob lives in Paris.' }).expect(202);
    expect(uploaded.headers.ratelimit).toMatch(/^"tenant";r=0;/);

    const gb = await t.http.post('/v1/gb/query').set('Authorization', key).send({ user_id: 'u1', query: 'Where does Alice work?' }).expect(429);
    expect(gb.body).toMatchObject({ error: 'rate_limit_exceeded', scope: 'tenant', limit: 1, burst: 3 });
    const remember = await t.http.post('/v1/gb/remember').set('Authorization', key).send({ user_id: 'u1', text: 'Alice left.' }).expect(429);
    expect(remember.body.error).toBe('rate_limit_exceeded');
    const upload = await t.http.post('/v1/documents').set('Authorization', key).send({ name: 'b.txt', text: 'Carol.' }).expect(429);
    expect(upload.body.error).toMatchObject({ code: 'rate_limit_exceeded', scope: 'tenant', retry_after: expect.any(Number) });
    expect(upload.headers['retry-after']).toBeDefined();
    // Reading is not metered: the tenant can still see its documents.
    await t.http.get('/v1/documents').set('Authorization', key).expect(200);
  });

  it("holds an API key to its own rate within the tenant's, leaving the tenant's other keys their share", async () => {
    const a = await createTenantWithPeople(t.app);
    // One token a minute: nothing refills while the test runs, however slow the machine.
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 50 });
    const created = await t.http
      .post('/v1/api-keys')
      .set('Authorization', `Bearer ${a.admin.token}`)
      .send({ name: 'one integration', requests_per_minute: 2 })
      .expect(201);
    expect(created.body.requests_per_minute).toBe(2);
    const listed = await t.http.get('/v1/api-keys').set('Authorization', `Bearer ${a.admin.token}`).expect(200);
    expect(listed.body.items.find((k: { id: string }) => k.id === created.body.id).requests_per_minute).toBe(2);

    const first = await ask(created.body.key).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"tenant";q=50;w=3000, "key";q=2;w=60');
    expect(first.headers.ratelimit).toMatch(/^"tenant";r=49;t=\d+, "key";r=1;t=\d+$/);
    await ask(created.body.key).expect(200);
    const refused = await ask(created.body.key).expect(429);
    expect(refused.body.detail).toMatchObject({ error: 'rate_limit_exceeded', scope: 'key', limit: 2, burst: 2 });
    // The refusal took nothing from the tenant: its other key has 48 of 50 left (two taken by the limited key).
    const other = await ask(a.apiKey.key).expect(200);
    expect(other.headers.ratelimit).toMatch(/^"tenant";r=47;/);
    // Bad rates are refused.
    await t.http.post('/v1/api-keys').set('Authorization', `Bearer ${a.admin.token}`).send({ name: 'x', requests_per_minute: 0 }).expect(400);
  });

  it("changes a live key's own rate and name (PATCH), from its next request on; another tenant's, a revoked one and bad bodies are refused", async () => {
    const a = await createTenantWithPeople(t.app);
    const b = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 50 });
    const admin = (token: string) => ({ Authorization: `Bearer ${token}` });
    const key = (await t.http.post('/v1/api-keys').set(admin(a.admin.token)).send({ name: 'batch job' }).expect(201)).body as { id: string; key: string };
    expect((await ask(key.key).expect(200)).headers['ratelimit-policy']).toBe('"tenant";q=50;w=3000');

    // The tenant's admin gives it a rate of its own: its next request is held to it.
    const patched = await t.http.patch(`/v1/api-keys/${key.id}`).set(admin(a.admin.token)).send({ requests_per_minute: 1 }).expect(200);
    expect(patched.body).toMatchObject({ id: key.id, name: 'batch job', requests_per_minute: 1 });
    expect((await ask(key.key).expect(200)).headers['ratelimit-policy']).toBe('"tenant";q=50;w=3000, "key";q=1;w=60');
    expect((await ask(key.key).expect(429)).body.detail).toMatchObject({ error: 'rate_limit_exceeded', scope: 'key', limit: 1 });
    // The operator renames it and lifts its own rate (null: the tenant's alone); the name stays when left out.
    const lifted = await t.http
      .patch(`/v1/admin/tenants/${a.tenant.id}/api-keys/${key.id}`)
      .set(admin(operator.token))
      .send({ name: 'nightly batch', requests_per_minute: null })
      .expect(200);
    expect(lifted.body).toMatchObject({ name: 'nightly batch', requests_per_minute: null });
    expect((await ask(key.key).expect(200)).headers['ratelimit-policy']).toBe('"tenant";q=50;w=3000');
    const listed = await t.http.get('/v1/api-keys').set(admin(a.admin.token)).expect(200);
    expect(listed.body.items.find((k: { id: string }) => k.id === key.id)).toMatchObject({ name: 'nightly batch', requests_per_minute: null });

    // Another tenant's admin, a member, an unknown id, a malformed body: nothing changes.
    await t.http.patch(`/v1/api-keys/${key.id}`).set(admin(b.admin.token)).send({ requests_per_minute: 1 }).expect(404);
    await t.http.patch(`/v1/admin/tenants/${b.tenant.id}/api-keys/${key.id}`).set(admin(operator.token)).send({ requests_per_minute: 1 }).expect(404);
    await t.http.patch(`/v1/api-keys/${key.id}`).set(admin(a.member.token)).send({ requests_per_minute: 1 }).expect(403);
    await t.http.patch('/v1/api-keys/00000000-0000-4000-8000-000000000000').set(admin(a.admin.token)).send({ name: 'x' }).expect(404);
    await t.http.patch('/v1/api-keys/not-a-key').set(admin(a.admin.token)).send({ name: 'x' }).expect(404);
    for (const body of [{}, { requests_per_minute: 0 }, { name: '' }, { scopes: ['read'] }]) {
      await t.http.patch(`/v1/api-keys/${key.id}`).set(admin(a.admin.token)).send(body).expect(400);
    }
    expect((await ask(key.key).expect(200)).headers['ratelimit-policy']).toBe('"tenant";q=50;w=3000');
    // A revoked key stays as it was revoked.
    await t.http.delete(`/v1/api-keys/${key.id}`).set(admin(a.admin.token)).expect(204);
    const revoked = await t.http.patch(`/v1/api-keys/${key.id}`).set(admin(a.admin.token)).send({ name: 'again' }).expect(409);
    expect(revoked.body).toEqual({ error: { code: 'conflict', message: expect.stringMatching(/revoked/) }, request_id: revoked.headers['x-request-id'] });
  });

  it('meters MCP tool calls, one token a call, the refusal a tool error naming the limit', async () => {
    const a = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 2 });
    const client = new Client({ name: 'rate-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': a.apiKey.key } } }));
    clients.push(client);
    // Listing tools is not metered.
    await client.listTools();
    const callAsk = async () =>
      (await client.callTool({ name: 'ask', arguments: { query: 'Where does Alice work?' } })) as { content: Array<{ text: string }>; isError?: boolean };
    expect((await callAsk()).isError).toBeFalsy();
    expect((await callAsk()).isError).toBeFalsy();
    const refused = await callAsk();
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^429: rate_limit_exceeded/);
    expect(refused.content[0].text).toMatch(/retry_after/);
  });

  it('lets a tenant with no rate through with no RateLimit header, and counts refusals in usage and metrics', async () => {
    const free = await createTenantWithPeople(t.app);
    const open = await ask(free.apiKey.key).expect(200);
    expect(open.headers['ratelimit-policy']).toBeUndefined();

    const a = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 1 });
    const scrape = async () => parsePrometheusText((await t.http.get('/metrics').set('Authorization', 'Bearer metrics-secret-0123456789').expect(200)).text);
    const kind = { kind: 'rate_limit_exceeded' };
    const before = sampleValue(await scrape(), 'loci_limit_refusals_total', kind);
    await ask(a.apiKey.key).expect(200);
    await ask(a.apiKey.key).expect(429);
    await ask(a.apiKey.key).expect(429);
    expect(sampleValue(await scrape(), 'loci_limit_refusals_total', kind) - before).toBe(2);
    const usage = await t.http.get('/v1/usage').set('Authorization', `Bearer ${a.admin.token}`).expect(200);
    expect(usage.body.items).toEqual([expect.objectContaining({ tenant_id: a.tenant.id, refusals: { rate_limit_exceeded: 2 } })]);

    // An operator lifting the rate applies to the next request.
    await setRate(a.tenant.id, { requests_per_minute: null });
    await ask(a.apiKey.key).expect(200);
  });

  it('an extra key is refused as well: a tenant cannot multiply its rate with keys', async () => {
    const a = await createTenantWithPeople(t.app);
    await setRate(a.tenant.id, { requests_per_minute: 1, request_burst: 2 });
    const second = await createApiKey(t.app, a.tenant.id);
    await ask(a.apiKey.key).expect(200);
    await ask(second.key).expect(200);
    await ask(second.key).expect(429);
    await ask(a.apiKey.key).expect(429);
  });
});
