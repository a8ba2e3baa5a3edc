import { randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** Tenant isolation on every route that takes an id, and the operators' tenant API. */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const unique = () => randomBytes(4).toString('hex');
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String) }, request_id: res.headers['x-request-id'] });
}

/** A 400 whose details name `field` (and so tell the caller what to fix). */
function expectFieldError(res: Response, field: string): void {
  expectError(res, 400, 'validation_failed');
  expect(res.body.error.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
}

// Ids that can name no row: each must be a 404, never a 500 from a failed uuid cast.
const MALFORMED_IDS = ['not-a-uuid', '123', `${randomUUID()}x`, randomUUID().replace(/-/g, ''), "1' OR '1'='1", '%00'];

describe('tenancy and the operators API (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b, operator] = await Promise.all([
      createTenantWithPeople(t.app),
      createTenantWithPeople(t.app),
      createUser(t.app, null, 'operator'),
    ]);
  });
  afterAll(() => t.close());

  const asOperator = {
    get: (path: string) => t.http.get(path).set(bearer(operator.token)),
    post: (path: string, body: object) => t.http.post(path).set(bearer(operator.token)).send(body),
    delete: (path: string) => t.http.delete(path).set(bearer(operator.token)),
  };
  const keyIds = (res: Response) => res.body.items.map((k: { id: string }) => k.id);

  describe("a tenant admin sees and touches only the tenant's own keys", () => {
    it("lists only the tenant's keys", async () => {
      const listA = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      const listB = await t.http.get('/v1/api-keys').set(bearer(b.admin.token)).expect(200);
      expect(keyIds(listA)).toContain(a.apiKey.id);
      expect(keyIds(listA)).not.toContain(b.apiKey.id);
      expect(keyIds(listB)).toEqual([b.apiKey.id]);
    });

    it("404s revoking another tenant's key, which keeps working", async () => {
      expectError(await t.http.delete(`/v1/api-keys/${b.apiKey.id}`).set(bearer(a.admin.token)), 404, 'not_found');
      const who = await t.http.get('/v1/me').set('X-API-Key', b.apiKey.key).expect(200);
      expect(who.body.tenant_id).toBe(b.tenant.id);
      // A key sees its own tenant's name, never the other's.
      expect(who.body).toMatchObject({ tenant_name: b.tenant.name, email: null });
      const listB = await t.http.get('/v1/api-keys').set(bearer(b.admin.token)).expect(200);
      expect(listB.body.items[0]).toMatchObject({ id: b.apiKey.id, revoked_at: null });
    });

    it('404s a key created in its own tenant by the other tenant', async () => {
      const created = await t.http.post('/v1/api-keys').set(bearer(b.admin.token)).send({ name: 'b only' }).expect(201);
      expectError(await t.http.delete(`/v1/api-keys/${created.body.id}`).set(bearer(a.admin.token)), 404, 'not_found');
      await t.http.get('/v1/me').set('X-API-Key', created.body.key).expect(200);
      const listA = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      expect(keyIds(listA)).not.toContain(created.body.id);
    });

    it.each(MALFORMED_IDS)('404s a malformed key id: %s', async (id) => {
      expectError(await t.http.delete(`/v1/api-keys/${encodeURIComponent(id)}`).set(bearer(a.admin.token)), 404, 'not_found');
    });

    it("reports each key's own tenant on /v1/me", async () => {
      const meA = await t.http.get('/v1/me').set('X-API-Key', a.apiKey.key).expect(200);
      const meB = await t.http.get('/v1/me').set(bearer(b.apiKey.key)).expect(200);
      expect(meA.body).toMatchObject({ kind: 'api_key', tenant_id: a.tenant.id, key_id: a.apiKey.id });
      expect(meB.body).toMatchObject({ kind: 'api_key', tenant_id: b.tenant.id, key_id: b.apiKey.id });
    });
  });

  describe('operator routes with ids', () => {
    const unknownTenant = randomUUID();

    it('404s an unknown or malformed tenant id', async () => {
      expectError(await asOperator.get(`/v1/admin/tenants/${unknownTenant}`), 404, 'not_found');
      for (const id of MALFORMED_IDS) {
        expectError(await asOperator.get(`/v1/admin/tenants/${encodeURIComponent(id)}`), 404, 'not_found');
      }
    });

    it('404s creating a user or a key in an unknown tenant, and creates nothing', async () => {
      const email = `ghost-${unique()}@example.test`;
      for (const tenantId of [unknownTenant, 'not-a-uuid']) {
        const user = await asOperator.post(`/v1/admin/tenants/${tenantId}/users`, { email, password: 'long enough password', role: 'admin' });
        expectError(user, 404, 'not_found');
        expectError(await asOperator.post(`/v1/admin/tenants/${tenantId}/api-keys`, { name: 'ghost' }), 404, 'not_found');
      }
      // Nothing was created: the email is still free.
      await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/users`, { email, password: 'long enough password', role: 'member' }).expect(201);
    });

    it("404s revoking tenant B's key through tenant A's path, and B's key keeps working", async () => {
      expectError(await asOperator.delete(`/v1/admin/tenants/${a.tenant.id}/api-keys/${b.apiKey.id}`), 404, 'not_found');
      expectError(await asOperator.delete(`/v1/admin/tenants/${unknownTenant}/api-keys/${b.apiKey.id}`), 404, 'not_found');
      for (const id of MALFORMED_IDS) {
        expectError(await asOperator.delete(`/v1/admin/tenants/${a.tenant.id}/api-keys/${encodeURIComponent(id)}`), 404, 'not_found');
      }
      await t.http.get('/v1/me').set('X-API-Key', b.apiKey.key).expect(200);
    });
  });

  describe('the operators tenant API', () => {
    it('creates a tenant and returns the documented fields', async () => {
      const name = `Acme ${unique()}`;
      const res = await asOperator.post('/v1/admin/tenants', { name, tier: 'pro', billing: 'own_key' }).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        name,
        own_llm_provider: null,
        answer_language: null,
        tier: 'pro',
        billing: 'own_key',
        // a pro tenant starts with the pro tier's defaults
        limits: {
          daily_cost_cap_usd: 50,
          monthly_cost_cap_usd: null,
          daily_query_quota: 5000,
          max_concurrent_queries: 10,
          max_running_jobs: 4,
          requests_per_minute: 600,
          request_burst: 100,
          daily_document_quota: 50000,
          daily_ingest_mb: 2000,
          max_stored_mb: 20000,
        },
        suspended_at: null,
        created_at: expect.stringMatching(ISO_DATETIME),
      });
      const fetched = await asOperator.get(`/v1/admin/tenants/${res.body.id}`).expect(200);
      expect(fetched.body).toEqual({
        ...res.body,
        spend: { today_usd: 0, this_month_usd: 0 },
        ingestion: { documents_today: 0, ingested_mb_today: 0, stored_mb: 0 },
        queue: { waiting: 0, scheduled: 0, running: 0, deferred: 0, oldest_waiting_seconds: 0, processed_last_hour: 0, failed_last_hour: 0 },
      });
    });

    it('defaults tier to free and billing to platform, and trims the name', async () => {
      const res = await asOperator.post('/v1/admin/tenants', { name: '  Plain Co  ' }).expect(201);
      expect(res.body).toMatchObject({ name: 'Plain Co', tier: 'free', billing: 'platform' });
    });

    it('lists tenants in creation order, paged by limit and offset', async () => {
      const created: string[] = [];
      for (let i = 0; i < 3; i++) created.push((await asOperator.post('/v1/admin/tenants', { name: `Paged ${i}` }).expect(201)).body.id);
      const all = await asOperator.get('/v1/admin/tenants?limit=200').expect(200);
      expect(all.body).toMatchObject({ limit: 200, offset: 0 });
      const ids: string[] = all.body.items.map((x: { id: string }) => x.id);
      expect(ids).toEqual(expect.arrayContaining([a.tenant.id, b.tenant.id, ...created]));
      const first = ids.indexOf(created[0]);
      expect(ids.slice(first, first + 3)).toEqual(created);

      const page = await asOperator.get(`/v1/admin/tenants?limit=2&offset=${first + 1}`).expect(200);
      expect(page.body).toMatchObject({ limit: 2, offset: first + 1 });
      expect(page.body.items.map((x: { id: string }) => x.id)).toEqual(created.slice(1, 3));
      expect(page.body.items[0]).toEqual(all.body.items[first + 1]);

      const defaults = await asOperator.get('/v1/admin/tenants').expect(200);
      expect(defaults.body).toMatchObject({ limit: 50, offset: 0 });
      const beyond = await asOperator.get(`/v1/admin/tenants?offset=${ids.length}`).expect(200);
      expect(beyond.body.items).toEqual([]);
    });

    it('creates a user who can log in to their tenant; the password never comes back', async () => {
      const email = `new-${unique()}@example.test`;
      const password = 'a sufficiently long password';
      const res = await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/users`, { email, password, role: 'member' }).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        tenant_id: a.tenant.id,
        email,
        role: 'member',
        disabled_at: null,
        created_at: expect.stringMatching(ISO_DATETIME),
      });
      expect(res.text).not.toContain(password);
      const login = await t.http.post('/v1/auth/login').send({ email, password }).expect(200);
      const who = await t.http.get('/v1/me').set(bearer(login.body.access_token)).expect(200);
      expect(who.body).toMatchObject({ tenant_id: a.tenant.id, user_id: res.body.id, role: 'member' });
    });

    it('409s a duplicate email, case-insensitively and across tenants', async () => {
      const email = `Dup-${unique()}@Example.test`;
      const body = { email, password: 'a sufficiently long password', role: 'admin' };
      await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/users`, body).expect(201);
      expectError(await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/users`, body), 409, 'conflict');
      expectError(await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/users`, { ...body, email: email.toLowerCase() }), 409, 'conflict');
      expectError(await asOperator.post(`/v1/admin/tenants/${b.tenant.id}/users`, { ...body, email: email.toUpperCase() }), 409, 'conflict');
      expectError(await asOperator.post(`/v1/admin/tenants/${b.tenant.id}/users`, { ...body, email: a.admin.email }), 409, 'conflict');
    });
  });

  describe('validation', () => {
    const usersPath = () => `/v1/admin/tenants/${a.tenant.id}/users`;
    const goodUser = () => ({ email: `v-${unique()}@example.test`, password: 'a sufficiently long password', role: 'member' });

    it('400s an unknown field and names it', async () => {
      expectFieldError(await asOperator.post('/v1/admin/tenants', { name: 'X', colour: 'red' }), 'colour');
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), is_operator: true }), 'is_operator');
      expectFieldError(await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'k', permissions: ['all'] }), 'permissions');
    });

    it('400s a field of the wrong type', async () => {
      expectFieldError(await asOperator.post('/v1/admin/tenants', { name: 42 }), 'name');
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), password: 123456789012345 }), 'password');
      expectFieldError(await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: ['k'] }), 'name');
    });

    it('400s a missing or empty required field', async () => {
      expectFieldError(await asOperator.post('/v1/admin/tenants', {}), 'name');
      expectFieldError(await asOperator.post('/v1/admin/tenants', { name: '   ' }), 'name');
    });

    it('400s an enum value it does not know', async () => {
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), role: 'operator' }), 'role');
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), role: 'owner' }), 'role');
      expectFieldError(await asOperator.post('/v1/admin/tenants', { name: 'X', tier: 'platinum' }), 'tier');
    });

    it('400s a password shorter than 12 characters, and accepts 12', async () => {
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), password: 'elevenchars' }), 'password');
      await asOperator.post(usersPath(), { ...goodUser(), password: 'twelve chars' }).expect(201);
    });

    it('400s an invalid email', async () => {
      expectFieldError(await asOperator.post(usersPath(), { ...goodUser(), email: 'not-an-email' }), 'email');
    });

    it('400s bad paging parameters', async () => {
      for (const query of ['limit=0', 'limit=201', 'limit=abc', 'offset=-1', 'limit=1.5']) {
        expectError(await asOperator.get(`/v1/admin/tenants?${query}`), 400, 'validation_failed');
      }
      expectFieldError(await asOperator.get('/v1/admin/tenants?page=2'), 'page');
    });

    it('400s a body that is not JSON', async () => {
      const res = await t.http
        .post('/v1/admin/tenants')
        .set(bearer(operator.token))
        .set('Content-Type', 'application/json')
        .send('{"name": ');
      expectError(res, 400, 'malformed_json');
    });
  });
});
