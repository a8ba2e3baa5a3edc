import { createHmac, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { generateApiKey } from '@loci/auth';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** Every way a credential can be wrong, seen from the wire; and an API key's life, as its holder sees it. */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The generic error body, with the request id the response header carries. */
function expectError(res: Response, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: { code, message: expect.any(String) },
    request_id: res.headers['x-request-id'],
  });
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if (status === 401) expect(res.headers['www-authenticate']).toBe('Bearer');
}

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodeSegment = (token: string, index: number) =>
  JSON.parse(Buffer.from(token.split('.')[index], 'base64url').toString('utf8'));

/** An HS256 JWT built by hand, so each test can get exactly one thing wrong. */
function signJwt(claims: Record<string, unknown>, secret: string, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }) {
  const input = `${segment(header)}.${segment(claims)}`;
  const algorithm = header.alg === 'HS512' ? 'sha512' : 'sha256';
  return `${input}.${createHmac(algorithm, secret).update(input).digest('base64url')}`;
}

describe('authentication and authorization (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let operator: TestUser;
  let secret: string;

  beforeAll(async () => {
    t = await startTestApp();
    secret = t.settings.jwt.secret;
    [a, operator] = await Promise.all([createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
  });
  afterAll(() => t.close());

  const now = () => Math.floor(Date.now() / 1000);
  /** Claims the app would issue to tenant A's admin; tests override one field at a time. */
  const adminClaims = (overrides: Record<string, unknown> = {}) => ({
    sub: a.admin.id,
    tid: a.tenant.id,
    role: 'admin',
    ver: 0,
    iss: 'loci',
    aud: 'loci-api',
    iat: now() - 10,
    exp: now() + 600,
    ...overrides,
  });
  const me = (headers: Record<string, string>) => t.http.get('/v1/me').set(headers);

  describe('POST /v1/auth/login', () => {
    it('returns a bearer token whose claims name the user, tenant and role', async () => {
      const res = await t.http.post('/v1/auth/login').send({ email: a.admin.email, password: a.admin.password }).expect(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: t.settings.jwt.ttlSeconds });
      const token: string = res.body.access_token;
      expect(decodeSegment(token, 0)).toMatchObject({ alg: 'HS256' });
      const claims = decodeSegment(token, 1);
      expect(claims).toMatchObject({ sub: a.admin.id, tid: a.tenant.id, role: 'admin', ver: 0, iss: 'loci', aud: 'loci-api' });
      expect(claims.exp - claims.iat).toBe(t.settings.jwt.ttlSeconds);
      const who = await me(bearer(token)).expect(200);
      expect(who.body).toEqual({
        kind: 'jwt',
        tenant_id: a.tenant.id,
        user_id: a.admin.id,
        key_id: null,
        role: 'admin',
        email: a.admin.email,
        tenant_name: a.tenant.name,
      });
    });

    it('gives an operator a token without a tenant claim', async () => {
      const res = await t.http.post('/v1/auth/login').send({ email: operator.email, password: operator.password }).expect(200);
      const claims = decodeSegment(res.body.access_token, 1);
      expect(claims).toMatchObject({ sub: operator.id, role: 'operator' });
      expect(claims).not.toHaveProperty('tid');
      const who = await me(bearer(res.body.access_token)).expect(200);
      expect(who.body).toMatchObject({ kind: 'jwt', tenant_id: null, user_id: operator.id, role: 'operator', email: operator.email, tenant_name: null });
    });

    it('matches the email case-insensitively', async () => {
      await t.http.post('/v1/auth/login').send({ email: a.member.email.toUpperCase(), password: a.member.password }).expect(200);
    });

    it('answers a wrong password and an unknown email identically', async () => {
      const wrongPassword = await t.http.post('/v1/auth/login').send({ email: a.admin.email, password: `${a.admin.password}x` });
      const unknownEmail = await t.http.post('/v1/auth/login').send({ email: 'nobody@example.test', password: a.admin.password });
      expectError(wrongPassword, 401, 'unauthenticated');
      expectError(unknownEmail, 401, 'unauthenticated');
      expect(JSON.stringify(unknownEmail.body.error)).toBe(JSON.stringify(wrongPassword.body.error));
      expect(unknownEmail.body.request_id).not.toBe(wrongPassword.body.request_id);
    });
  });

  describe('missing or unusable credentials', () => {
    it('401s a protected route without credentials, in the generic error shape', async () => {
      const res = await t.http.get('/v1/me').set('X-Request-Id', 'auth-test-1');
      expectError(res, 401, 'unauthenticated');
      expect(res.body.request_id).toBe(res.headers['x-request-id']);
      expect(res.headers['x-client-request-id']).toBe('auth-test-1');
    });

    it.each([
      ['a Basic authorization', 'Basic dXNlcjpwYXNz'],
      ['an empty Bearer', 'Bearer '],
      ['a Bearer of garbage', 'Bearer not-a-token'],
      ['a Bearer with two tokens', 'Bearer a b'],
    ])('401s %s header', async (_name, authorization) => {
      expectError(await me({ Authorization: authorization }), 401, 'unauthenticated');
    });
  });

  describe('JWTs', () => {
    it('accepts a hand-signed token with correct claims (the control for the cases below)', async () => {
      const res = await me(bearer(signJwt(adminClaims(), secret))).expect(200);
      expect(res.body).toMatchObject({ kind: 'jwt', tenant_id: a.tenant.id, user_id: a.admin.id, role: 'admin' });
    });

    const cases: Array<[string, () => string]> = [
      ['expired', () => signJwt(adminClaims({ iat: now() - 7200, exp: now() - 60 }), secret)],
      ['no expiry at all', () => signJwt(adminClaims({ exp: undefined }), secret)],
      ['not yet valid (nbf)', () => signJwt(adminClaims({ nbf: now() + 3600 }), secret)],
      ['signed with another secret', () => signJwt(adminClaims(), 'another-secret-that-is-long-enough-0123456789')],
      ['alg none, no signature', () => `${segment({ alg: 'none', typ: 'JWT' })}.${segment(adminClaims())}.`],
      ['alg none, with a signature', () => signJwt(adminClaims(), secret, { alg: 'none', typ: 'JWT' })],
      ['HS512 (not the accepted algorithm)', () => signJwt(adminClaims(), secret, { alg: 'HS512', typ: 'JWT' })],
      ['missing tid for an admin', () => signJwt(adminClaims({ tid: undefined }), secret)],
      ['missing tid for a member', () => signJwt(adminClaims({ tid: undefined, role: 'member' }), secret)],
      ['missing sub', () => signJwt(adminClaims({ sub: undefined }), secret)],
      ['an unknown role', () => signJwt(adminClaims({ role: 'superuser' }), secret)],
      ['no token version', () => signJwt(adminClaims({ ver: undefined }), secret)],
      ['a token version ahead of the user', () => signJwt(adminClaims({ ver: 1 }), secret)],
      ['a token version that is no integer', () => signJwt(adminClaims({ ver: '0' }), secret)],
      ['a user that does not exist', () => signJwt(adminClaims({ sub: randomUUID() }), secret)],
      ['the wrong issuer', () => signJwt(adminClaims({ iss: 'someone-else' }), secret)],
      ['no issuer', () => signJwt(adminClaims({ iss: undefined }), secret)],
      ['the wrong audience', () => signJwt(adminClaims({ aud: 'other-api' }), secret)],
      ['no audience', () => signJwt(adminClaims({ aud: undefined }), secret)],
      ['only two segments', () => signJwt(adminClaims(), secret).split('.').slice(0, 2).join('.')],
    ];
    it.each(cases)('401s a token: %s', async (_name, token) => {
      expectError(await me(bearer(token())), 401, 'unauthenticated');
    });

    it('401s a real token whose payload was edited (role raised, tenant switched)', async () => {
      const [header, , signature] = a.member.token.split('.');
      const claims = decodeSegment(a.member.token, 1);
      await me(bearer(a.member.token)).expect(200);
      for (const edited of [{ ...claims, role: 'operator' }, { ...claims, role: 'admin' }, { ...claims, tid: randomUUID() }]) {
        expectError(await me(bearer(`${header}.${segment(edited)}.${signature}`)), 401, 'unauthenticated');
      }
      expectError(await t.http.get('/v1/admin/tenants').set(bearer(`${header}.${segment({ ...claims, role: 'operator' })}.${signature}`)), 401, 'unauthenticated');
    });
  });

  describe('roles', () => {
    it('403s members and admins on the operators API', async () => {
      for (const user of [a.member, a.admin]) {
        expectError(await t.http.get('/v1/admin/tenants').set(bearer(user.token)), 403, 'forbidden');
        expectError(await t.http.post('/v1/admin/tenants').set(bearer(user.token)).send({ name: 'Sneaky' }), 403, 'forbidden');
        expectError(await t.http.get(`/v1/admin/tenants/${a.tenant.id}`).set(bearer(user.token)), 403, 'forbidden');
      }
      await t.http.get('/v1/admin/tenants').set(bearer(operator.token)).expect(200);
    });

    it('403s a member on the API-key routes', async () => {
      expectError(await t.http.post('/v1/api-keys').set(bearer(a.member.token)).send({ name: 'mine' }), 403, 'forbidden');
      expectError(await t.http.get('/v1/api-keys').set(bearer(a.member.token)), 403, 'forbidden');
      expectError(await t.http.delete(`/v1/api-keys/${a.apiKey.id}`).set(bearer(a.member.token)), 403, 'forbidden');
      await me({ 'X-API-Key': a.apiKey.key }).expect(200);
    });

    it('403s an operator on the tenant API-key routes (operators have no tenant)', async () => {
      expectError(await t.http.get('/v1/api-keys').set(bearer(operator.token)), 403, 'forbidden');
      expectError(await t.http.post('/v1/api-keys').set(bearer(operator.token)).send({ name: 'ops' }), 403, 'forbidden');
    });

    it('403s an operator token that carries a tenant claim on the tenant routes too', async () => {
      const token = signJwt({ ...adminClaims(), sub: operator.id, role: 'operator' }, secret);
      expectError(await t.http.get('/v1/api-keys').set(bearer(token)), 403, 'forbidden');
    });
  });

  describe('API keys as credentials', () => {
    it('accepts a key as a Bearer token and as X-API-Key on /v1/me', async () => {
      const expected = { kind: 'api_key', tenant_id: a.tenant.id, user_id: null, key_id: a.apiKey.id, role: null, email: null, tenant_name: a.tenant.name };
      expect((await me(bearer(a.apiKey.key)).expect(200)).body).toEqual(expected);
      expect((await me({ 'X-API-Key': a.apiKey.key }).expect(200)).body).toEqual(expected);
    });

    it('403s a valid key on JWT-only routes', async () => {
      for (const headers of [bearer(a.apiKey.key), { 'X-API-Key': a.apiKey.key }]) {
        expectError(await t.http.get('/v1/admin/tenants').set(headers), 403, 'forbidden');
        expectError(await t.http.get('/v1/api-keys').set(headers), 403, 'forbidden');
        expectError(await t.http.post('/v1/api-keys').set(headers).send({ name: 'self-made' }), 403, 'forbidden');
        expectError(await t.http.delete(`/v1/api-keys/${a.apiKey.id}`).set(headers), 403, 'forbidden');
      }
      await me({ 'X-API-Key': a.apiKey.key }).expect(200); // not revoked by the attempt above
    });

    it('401s a well-formed key that was never issued', async () => {
      const unknown = generateApiKey().key;
      expectError(await me(bearer(unknown)), 401, 'unauthenticated');
      expectError(await me({ 'X-API-Key': unknown }), 401, 'unauthenticated');
    });

    it("401s a key with a real key's prefix but another secret", async () => {
      const forged = a.apiKey.key.slice(0, 13) + generateApiKey().key.slice(13);
      expect(forged).not.toBe(a.apiKey.key);
      expectError(await me({ 'X-API-Key': forged }), 401, 'unauthenticated');
    });

    it.each([
      ['too short', 'loci_abc'],
      ['too long', () => `${generateApiKey().key}A`],
      ['bad characters', `loci_${'!'.repeat(43)}`],
      ['a marker only', 'loci_'],
    ])('401s a malformed loci_ key (%s)', async (_name, value) => {
      const key = typeof value === 'function' ? value() : value;
      expectError(await me(bearer(key)), 401, 'unauthenticated');
      expectError(await me({ 'X-API-Key': key }), 401, 'unauthenticated');
    });

    it('401s a value in X-API-Key that is not a key, even a valid JWT', async () => {
      expectError(await me({ 'X-API-Key': 'hunter2' }), 401, 'unauthenticated');
      expectError(await me({ 'X-API-Key': a.admin.token }), 401, 'unauthenticated');
      // A bad X-API-Key is not silently ignored in favour of a good Authorization header.
      expectError(await me({ 'X-API-Key': 'hunter2', ...bearer(a.admin.token) }), 401, 'unauthenticated');
    });
  });

  describe('revocation', () => {
    it('a tenant admin revokes a key: it works until then and fails on the very next request', async () => {
      const created = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'to revoke' }).expect(201);
      const key: string = created.body.key;
      await me({ 'X-API-Key': key }).expect(200);
      await t.http.delete(`/v1/api-keys/${created.body.id}`).set(bearer(a.admin.token)).expect(204);
      expectError(await me({ 'X-API-Key': key }), 401, 'unauthenticated');
      expectError(await me(bearer(key)), 401, 'unauthenticated');
      // Idempotent while the key exists; the listing shows when it was revoked.
      await t.http.delete(`/v1/api-keys/${created.body.id}`).set(bearer(a.admin.token)).expect(204);
      const list = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      const item = list.body.items.find((k: { id: string }) => k.id === created.body.id);
      expect(item.revoked_at).toEqual(expect.any(String));
      expect(new Date(item.revoked_at).getTime()).not.toBeNaN();
      await me({ 'X-API-Key': a.apiKey.key }).expect(200); // the tenant's other key is untouched
    });

    it("an operator revokes a tenant's key through the admin API, with the same effect", async () => {
      const path = `/v1/admin/tenants/${a.tenant.id}/api-keys`;
      const created = await t.http.post(path).set(bearer(operator.token)).send({ name: 'ops-issued' }).expect(201);
      await me(bearer(created.body.key)).expect(200);
      await t.http.delete(`${path}/${created.body.id}`).set(bearer(operator.token)).expect(204);
      expectError(await me(bearer(created.body.key)), 401, 'unauthenticated');
      await t.http.delete(`${path}/${created.body.id}`).set(bearer(operator.token)).expect(204);
    });

    it('404s revoking a key id that does not exist', async () => {
      expectError(await t.http.delete(`/v1/api-keys/${randomUUID()}`).set(bearer(a.admin.token)), 404, 'not_found');
    });
  });

  describe('a created key is shown once', () => {
    it('POST returns the key; the listing has only its prefix', async () => {
      const created = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'ci' }).expect(201);
      const key: string = created.body.key;
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'ci',
        prefix: key.slice(0, 13),
        key,
        scopes: ['read', 'write'],
        created_by_user_id: a.admin.id,
        created_at: expect.any(String),
        expires_at: null,
        requests_per_minute: null,
        last_used_at: null,
        revoked_at: null,
      });
      expect(key).toMatch(/^loci_[A-Za-z0-9_-]{43}$/);
      await me({ 'X-API-Key': key }).expect(200); // sets last_used_at: the listing must still hide the key

      const list = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      expect(list.text).not.toContain(key);
      expect(list.text).not.toContain(key.slice(13));
      const item = list.body.items.find((k: { id: string }) => k.id === created.body.id);
      expect(Object.keys(item).sort()).toEqual(['created_at', 'created_by_user_id', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'requests_per_minute', 'revoked_at', 'scopes']);
      expect(item.prefix).toBe(key.slice(0, 13));
    });

    it('the operator-created key is likewise returned once and never listed', async () => {
      const created = await t.http
        .post(`/v1/admin/tenants/${a.tenant.id}/api-keys`)
        .set(bearer(operator.token))
        .send({ name: 'ops' })
        .expect(201);
      expect(created.body.key).toMatch(/^loci_[A-Za-z0-9_-]{43}$/);
      const list = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      expect(list.text).not.toContain(created.body.key);
      expect(list.body.items.map((k: { id: string }) => k.id)).toContain(created.body.id);
    });
  });
});
