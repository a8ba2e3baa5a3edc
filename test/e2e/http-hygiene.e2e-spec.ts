import type { Server } from 'node:http';
import type { Response } from 'supertest';
import { createTenantWithPeople, createUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 15, item 6: security headers on every response, no caching of API answers (tokens and
 * new keys among them), the CORS allow-list, HSTS and the API docs behind settings, and the
 * server's request and header timeouts.
 */
function expectSecurityHeaders(response: Response): void {
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
  expect(response.headers['x-frame-options']).toBe('DENY');
  expect(response.headers['content-security-policy']).toContain("default-src 'self'");
  expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(response.headers['x-powered-by']).toBeUndefined();
}

describe('HTTP hygiene, default settings (e2e)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp();
    people = await createTenantWithPeople(t.app);
  });
  afterAll(() => t.close());

  it('sends the security headers on answers and on errors, and no HSTS unless told to', async () => {
    const ok = await t.http.get('/v1/me').set('Authorization', `Bearer ${people.member.token}`).expect(200);
    const unauthenticated = await t.http.get('/v1/me').expect(401);
    const missing = await t.http.get('/no-such-route').expect(404);
    for (const response of [ok, unauthenticated, missing]) {
      expectSecurityHeaders(response);
      expect(response.headers['strict-transport-security']).toBeUndefined();
    }
  });

  it('forbids caching of a login, of new API keys, and of every other API answer', async () => {
    const login = await t.http.post('/v1/auth/login').send({ email: people.admin.email, password: people.admin.password }).expect(200);
    const ownKey = await t.http.post('/v1/api-keys').set('Authorization', `Bearer ${people.admin.token}`).send({ name: 'ci' }).expect(201);
    const operator = await createUser(t.app, null, 'operator');
    const operatorKey = await t.http
      .post(`/v1/admin/tenants/${people.tenant.id}/api-keys`)
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ name: 'ops' })
      .expect(201);
    const refused = await t.http.post('/v1/auth/login').send({ email: people.admin.email, password: 'wrong-password' }).expect(401);
    expect(login.body.access_token).toEqual(expect.any(String));
    expect(ownKey.body.key).toEqual(expect.any(String));
    expect(operatorKey.body.key).toEqual(expect.any(String));
    for (const response of [login, ownKey, operatorKey, refused]) expect(response.headers['cache-control']).toBe('no-store');
    // Never stored, so never validated: no ETag is computed for an answer.
    const listed = await t.http.get('/v1/api-keys').set('Authorization', `Bearer ${people.admin.token}`).expect(200);
    for (const response of [login, ownKey, listed]) expect(response.headers.etag).toBeUndefined();
  });

  it('sends no CORS headers when no origin is allowed', async () => {
    const simple = await t.http.get('/health').set('Origin', 'https://app.example.com');
    expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.http.options('/v1/query').set('Origin', 'https://app.example.com').set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(preflight.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('serves the API docs by default', async () => {
    await t.http.get('/openapi.json').expect(200);
    await t.http.get('/docs').expect(200);
  });

  it('gives clients 60 s to send a request and 20 s for its headers', () => {
    const server = t.app.getHttpServer() as Server;
    expect([server.requestTimeout, server.headersTimeout]).toEqual([60_000, 20_000]);
  });
});

describe('HTTP hygiene, configured (e2e)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  const allowed = 'https://app.example.com';

  beforeAll(async () => {
    t = await startTestApp({
      LOCI_CORS_ORIGINS: `${allowed}, http://localhost:5173`,
      LOCI_HSTS_MAX_AGE_SECONDS: '31536000',
      LOCI_API_DOCS: 'false',
      LOCI_HTTP_REQUEST_TIMEOUT_MS: '45000',
      LOCI_HTTP_HEADERS_TIMEOUT_MS: '15000',
    });
    people = await createTenantWithPeople(t.app);
  });
  afterAll(() => t.close());

  it('lets an allowed origin read answers and preflight the credential headers', async () => {
    const response = await t.http.get('/v1/me').set('Origin', allowed).set('Authorization', `Bearer ${people.member.token}`).expect(200);
    expect(response.headers['access-control-allow-origin']).toBe(allowed);
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.headers['access-control-expose-headers']).toContain('Retry-After');

    const preflight = await t.http
      .options('/v1/query')
      .set('Origin', allowed)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(allowed);
    expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
  });

  it('gives any other origin no CORS permission', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'null']) {
      const response = await t.http.get('/v1/me').set('Origin', origin).set('Authorization', `Bearer ${people.member.token}`);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await t.http.options('/v1/query').set('Origin', origin).set('Access-Control-Request-Method', 'POST');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('sends HSTS with the configured max-age', async () => {
    const response = await t.http.get('/health');
    expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expectSecurityHeaders(response);
  });

  it('answers 404 for /docs and /openapi.json when the docs are off', async () => {
    for (const path of ['/docs', '/openapi.json', '/openapi.yaml']) {
      const response = await t.http.get(path).expect(404);
      expect(response.body).toEqual({ error: { code: 'not_found', message: expect.any(String) }, request_id: response.headers['x-request-id'] });
    }
  });

  it('applies the configured request and header timeouts', () => {
    const server = t.app.getHttpServer() as Server;
    expect([server.requestTimeout, server.headersTimeout]).toEqual([45_000, 15_000]);
  });
});
