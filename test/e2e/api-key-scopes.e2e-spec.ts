import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { eq } from 'drizzle-orm';
import { apiKeys, Database, DATABASE } from '@loci/db';
import { createApiKey, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 15.2: API keys carry scopes (read: questions and context; write: documents and
 * remember, deletes), an optional expiry, who created them and when they were last used.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const withKey = (key: string) => ({ 'X-API-Key': key });

function expectGenericError(res: Response, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: expect.objectContaining({ code, message: expect.any(String) }), request_id: res.headers['x-request-id'] },
  });
}

describe('API key scopes and expiry (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;
  let readOnly: { id: string; key: string };
  let writeOnly: { id: string; key: string };

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    [readOnly, writeOnly] = await Promise.all([
      createApiKey(t.app, a.tenant.id, { scopes: ['read'] }),
      createApiKey(t.app, a.tenant.id, { scopes: ['write'] }),
    ]);
    // Something to read, written with the full key.
    await t.http.post('/v1/gb/remember').set(withKey(a.apiKey.key)).send({ user_id: 'u1', text: 'Alice works at Acme since 2023.' }).expect(200);
  });
  afterAll(() => t.close());

  describe('creating keys with scopes and an expiry', () => {
    it('records the scopes, the expiry and the creator, and lists them with last use', async () => {
      const expiresAt = new Date(Date.now() + 7 * 86_400_000);
      const created = await t.http
        .post('/v1/api-keys')
        .set(bearer(a.admin.token))
        .send({ name: 'dashboard widget', scopes: ['read', 'read'], expires_at: expiresAt.toISOString() })
        .expect(201);
      expect(created.body).toMatchObject({
        scopes: ['read'],
        created_by_user_id: a.admin.id,
        expires_at: expiresAt.toISOString(),
        last_used_at: null,
        revoked_at: null,
      });
      await t.http.get('/v1/me').set(withKey(created.body.key)).expect(200);

      const defaults = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'full' }).expect(201);
      expect(defaults.body).toMatchObject({ scopes: ['read', 'write'], expires_at: null });

      // last_used_at is written after the request, off its path: wait for it to land.
      let listed: Record<string, unknown> | undefined;
      for (let attempt = 0; attempt < 50 && !listed?.last_used_at; attempt++) {
        const list = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
        listed = list.body.items.find((k: { id: string }) => k.id === created.body.id);
        if (!listed?.last_used_at) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(listed).toMatchObject({ scopes: ['read'], created_by_user_id: a.admin.id, expires_at: expiresAt.toISOString(), last_used_at: expect.any(String) });
    });

    it('lets an operator create a scoped, expiring key for a tenant', async () => {
      const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
      const created = await t.http
        .post(`/v1/admin/tenants/${a.tenant.id}/api-keys`)
        .set(bearer(operator.token))
        .send({ name: 'ops read', scopes: ['read'], expires_at: expiresAt })
        .expect(201);
      expect(created.body).toMatchObject({ scopes: ['read'], created_by_user_id: operator.id, expires_at: expiresAt });
      expectGenericError(await t.http.post('/v1/documents').set(withKey(created.body.key)).send({ name: 'n', text: 't' }), 403, 'forbidden');
    });

    it.each([
      ['no scope', { scopes: [] }],
      ['an unknown scope', { scopes: ['admin'] }],
      ['scopes as a string', { scopes: 'read' }],
      ['an expiry in the past', { expires_at: new Date(Date.now() - 60_000).toISOString() }],
      ['an expiry that is no date', { expires_at: 'tomorrow' }],
      ['an expiry without its offset', { expires_at: '2999-01-01T00:00:00' }],
    ])('400s a key with %s', async (_name, fields) => {
      const res = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'bad', ...fields });
      expectGenericError(res, 400, 'validation_failed');
    });
  });

  describe('a read-only key', () => {
    it('asks questions and reads context on every surface', async () => {
      await t.http.post('/v1/query').set(withKey(readOnly.key)).send({ query: 'Where does Alice work?', mode: 'naive' }).expect(200);
      await t.http.post('/v1/gb/query').set(withKey(readOnly.key)).send({ user_id: 'u1', query: 'Where does Alice work?' }).expect(200);
      await t.http.get('/v1/gb/datasets?user_id=u1').set(withKey(readOnly.key)).expect(200);
      await t.http.get('/v1/documents').set(withKey(readOnly.key)).expect(200);
      await t.http.get('/v1/me').set(withKey(readOnly.key)).expect(200);
    });

    it('is refused every write with 403 in the surface’s shape, naming the missing scope', async () => {
      const upload = await t.http.post('/v1/documents').set(withKey(readOnly.key)).send({ name: 'notes', text: 'Bob lives in Paris.' });
      expectGenericError(upload, 403, 'forbidden');
      expect(upload.body.error.message).toContain("'write'");
      expectGenericError(await t.http.delete('/v1/documents/1').set(withKey(readOnly.key)), 403, 'forbidden');
      expectGenericError(await t.http.post('/v1/documents/1/retry').set(withKey(readOnly.key)), 403, 'forbidden');

      const remember = await t.http.post('/v1/gb/remember').set(withKey(readOnly.key)).send({ user_id: 'u1', text: 'Bob lives in Paris.' });
      expect(remember.status).toBe(403);
      expect(remember.body).toEqual({ error: expect.stringContaining("'write'") });
      const drop = await t.http.delete('/v1/gb/datasets/main?user_id=u1').set(withKey(readOnly.key));
      expect(drop.status).toBe(403);
      expect(drop.body).toEqual({ error: expect.stringContaining("'write'") });

      // Nothing was written or deleted.
      const datasets = await t.http.get('/v1/gb/datasets?user_id=u1').set(withKey(a.apiKey.key)).expect(200);
      expect(JSON.stringify(datasets.body)).toContain('main');
      const documents = await t.http.get('/v1/documents').set(withKey(a.apiKey.key)).expect(200);
      expect(documents.body.items).toEqual([]);
    });
  });

  describe('a write-only key', () => {
    it('writes, but may not ask: /v1/query answers 403 in FastAPI’s shape, gb in its own', async () => {
      await t.http.post('/v1/gb/remember').set(withKey(writeOnly.key)).send({ user_id: 'u2', text: 'Carol lives in Rome.' }).expect(200);
      const asked = await t.http.post('/v1/query').set(withKey(writeOnly.key)).send({ query: 'Where does Alice work?' });
      expect(asked.status).toBe(403);
      expect(asked.body).toEqual({ detail: expect.stringContaining("'read'") });
      const gb = await t.http.post('/v1/gb/query').set(withKey(writeOnly.key)).send({ user_id: 'u1', query: 'Where does Alice work?' });
      expect(gb.status).toBe(403);
      expect(gb.body).toEqual({ error: expect.stringContaining("'read'") });
      expectGenericError(await t.http.get('/v1/documents').set(withKey(writeOnly.key)), 403, 'forbidden');
      await t.http.get('/v1/me').set(withKey(writeOnly.key)).expect(200);
    });
  });

  describe('expiry', () => {
    it('401s an expired key as it does a revoked one, on every surface', async () => {
      const expired = await createApiKey(t.app, a.tenant.id, { expiresAt: new Date(Date.now() - 1000) });
      expectGenericError(await t.http.get('/v1/me').set(withKey(expired.key)), 401, 'unauthenticated');
      expectGenericError(await t.http.get('/v1/me').set(bearer(expired.key)), 401, 'unauthenticated');
      const asked = await t.http.post('/v1/query').set(withKey(expired.key)).send({ query: 'Where does Alice work?' });
      expect(asked.status).toBe(401);
      expect(asked.body).toEqual({ detail: expect.any(String) });
      const gb = await t.http.post('/v1/gb/query').set(withKey(expired.key)).send({ user_id: 'u1', query: 'Where does Alice work?' });
      expect(gb.status).toBe(401);
      expect(gb.body).toEqual({ error: expect.any(String) });
    });

    it('a key works until its expiry and not after (the expiry moved into the past in the store)', async () => {
      const key = await createApiKey(t.app, a.tenant.id, { expiresAt: new Date(Date.now() + 3_600_000) });
      await t.http.get('/v1/me').set(withKey(key.key)).expect(200);
      await t.app.get<Database>(DATABASE).db.update(apiKeys).set({ expiresAt: new Date(Date.now() - 1) }).where(eq(apiKeys.id, key.id));
      expectGenericError(await t.http.get('/v1/me').set(withKey(key.key)), 401, 'unauthenticated');
    });
  });

  describe('tenants', () => {
    it("list only their own keys, with their own creators; another tenant's scoped key is no key here", async () => {
      const created = await t.http.post('/v1/api-keys').set(bearer(b.admin.token)).send({ name: 'b read', scopes: ['read'] }).expect(201);
      const listA = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      expect(listA.body.items.map((k: { id: string }) => k.id)).not.toContain(created.body.id);
      const listB = await t.http.get('/v1/api-keys').set(bearer(b.admin.token)).expect(200);
      expect(listB.body.items.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({ created_by_user_id: b.admin.id, scopes: ['read'] });
      // B's read key reads B's memory, never A's user u1.
      const gb = await t.http.post('/v1/gb/query').set(withKey(created.body.key)).send({ user_id: 'u1', query: 'Where does Alice work?' });
      expect(gb.status).toBe(404);
      expectGenericError(await t.http.delete(`/v1/api-keys/${created.body.id}`).set(bearer(a.admin.token)), 404, 'not_found');
      expectGenericError(await t.http.delete(`/v1/api-keys/${randomUUID()}`).set(bearer(b.admin.token)), 404, 'not_found');
    });
  });
});
