import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { Response } from 'supertest';
import { createApp } from '../../apps/api/src/create-app';
import { createTenant, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 15.2: users are listed, created, changed and deleted by their tenant's admins and by
 * operators; a user changes their own password; and disabling, deleting or a new password ends
 * the user's tokens on the very next request.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const unique = () => randomBytes(4).toString('hex');

function expectError(res: Response, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error: expect.objectContaining({ code, message: expect.any(String) }), request_id: res.headers['x-request-id'] },
  });
}

describe('user lifecycle (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;

  beforeAll(async () => {
    t = await startTestApp();
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
  });
  afterAll(() => t.close());

  const me = (token: string) => t.http.get('/v1/me').set(bearer(token));
  const login = (email: string, password: string) => t.http.post('/v1/auth/login').send({ email, password });
  const ids = (res: Response) => res.body.items.map((u: { id: string }) => u.id);
  /** A tenant with one admin (and nobody else): the last-admin cases. */
  const loneAdminTenant = async () => {
    const tenant = await createTenant(t.app);
    return { tenant, admin: await createUser(t.app, tenant.id, 'admin') };
  };

  describe('tenant admins, /v1/users', () => {
    it("lists the tenant's own users, none of another tenant's", async () => {
      const res = await t.http.get('/v1/users').set(bearer(a.admin.token)).expect(200);
      expect(res.body).toEqual({ items: expect.any(Array), limit: 50, offset: 0 });
      expect(ids(res).sort()).toEqual([a.admin.id, a.member.id].sort());
      expect(res.body.items.find((u: { id: string }) => u.id === a.member.id)).toEqual({
        id: a.member.id,
        tenant_id: a.tenant.id,
        email: a.member.email,
        role: 'member',
        disabled_at: null,
        created_at: expect.any(String),
      });
      expect(res.text).not.toContain('password');
      const paged = await t.http.get('/v1/users?limit=1&offset=1').set(bearer(a.admin.token)).expect(200);
      expect(paged.body.items).toHaveLength(1);
    });

    it('creates a user in its own tenant, who can sign in; a duplicate email is a 409', async () => {
      const email = `made-${unique()}@example.test`;
      const password = 'a long enough password';
      const res = await t.http.post('/v1/users').set(bearer(a.admin.token)).send({ email, password, role: 'member' }).expect(201);
      expect(res.body).toMatchObject({ tenant_id: a.tenant.id, email, role: 'member', disabled_at: null });
      const token = (await login(email, password).expect(200)).body.access_token;
      expect((await me(token).expect(200)).body).toMatchObject({ tenant_id: a.tenant.id, user_id: res.body.id, role: 'member' });
      expectError(await t.http.post('/v1/users').set(bearer(b.admin.token)).send({ email, password, role: 'member' }), 409, 'conflict');
    });

    it.each([
      ['an operator role', { role: 'operator' }],
      ['a short password', { password: 'short' }],
      ['an unknown field', { tenant_id: randomUUID() }],
    ])('400s creating a user with %s', async (_name, override) => {
      const body = { email: `bad-${unique()}@example.test`, password: 'a long enough password', role: 'member', ...override };
      expectError(await t.http.post('/v1/users').set(bearer(a.admin.token)).send(body), 400, 'validation_failed');
    });

    it('changes a role, and the change holds on the tokens the user already has', async () => {
      const user = await createUser(t.app, a.tenant.id, 'member');
      expectError(await t.http.get('/v1/users').set(bearer(user.token)), 403, 'forbidden');
      const res = await t.http.patch(`/v1/users/${user.id}`).set(bearer(a.admin.token)).send({ role: 'admin' }).expect(200);
      expect(res.body).toMatchObject({ id: user.id, role: 'admin', disabled_at: null });
      await t.http.get('/v1/users').set(bearer(user.token)).expect(200);
      await t.http.patch(`/v1/users/${user.id}`).set(bearer(a.admin.token)).send({ role: 'member' }).expect(200);
      expectError(await t.http.get('/v1/users').set(bearer(user.token)), 403, 'forbidden');
    });

    it('disabling ends the tokens at once and refuses sign-in as a wrong password would; enabling allows sign-in again', async () => {
      const user = await createUser(t.app, a.tenant.id, 'member');
      await me(user.token).expect(200);
      const res = await t.http.patch(`/v1/users/${user.id}`).set(bearer(a.admin.token)).send({ disabled: true }).expect(200);
      expect(new Date(res.body.disabled_at).getTime()).not.toBeNaN();
      expectError(await me(user.token), 401, 'unauthenticated');

      const refused = await login(user.email, user.password);
      const wrong = await login(user.email, 'not the password at all');
      expectError(refused, 401, 'unauthenticated');
      expect(refused.body.error).toEqual(wrong.body.error);

      await t.http.patch(`/v1/users/${user.id}`).set(bearer(a.admin.token)).send({ disabled: false }).expect(200);
      const again = (await login(user.email, user.password).expect(200)).body.access_token;
      await me(again).expect(200);
      expectError(await me(user.token), 401, 'unauthenticated'); // a token ended stays ended
    });

    it("deleting ends the user's tokens and revokes the keys they created; others' keys stay", async () => {
      const leaver = await createUser(t.app, a.tenant.id, 'admin');
      const theirs = await t.http.post('/v1/api-keys').set(bearer(leaver.token)).send({ name: 'leaver' }).expect(201);
      expect(theirs.body.created_by_user_id).toBe(leaver.id);
      const kept = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: 'stays' }).expect(201);

      const res = await t.http.delete(`/v1/users/${leaver.id}`).set(bearer(a.admin.token)).expect(200);
      expect(res.body).toEqual({ id: leaver.id, revoked_api_key_ids: [theirs.body.id] });
      expectError(await me(leaver.token), 401, 'unauthenticated');
      expectError(await login(leaver.email, leaver.password), 401, 'unauthenticated');
      expectError(await t.http.get('/v1/me').set('X-API-Key', theirs.body.key), 401, 'unauthenticated');
      await t.http.get('/v1/me').set('X-API-Key', kept.body.key).expect(200);

      const listed = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      const revoked = listed.body.items.find((k: { id: string }) => k.id === theirs.body.id);
      expect(revoked).toMatchObject({ created_by_user_id: leaver.id, revoked_at: expect.any(String) });
      expect(ids(await t.http.get('/v1/users').set(bearer(a.admin.token)))).not.toContain(leaver.id);
      expectError(await t.http.delete(`/v1/users/${leaver.id}`).set(bearer(a.admin.token)), 404, 'not_found');
    });

    it("a deleted admin's token cannot create API keys", async () => {
      const gone = await createUser(t.app, a.tenant.id, 'admin');
      await t.http.get('/v1/api-keys').set(bearer(gone.token)).expect(200);
      await t.http.delete(`/v1/users/${gone.id}`).set(bearer(a.admin.token)).expect(200);
      expectError(await t.http.post('/v1/api-keys').set(bearer(gone.token)).send({ name: 'after death' }), 401, 'unauthenticated');
      const keys = await t.http.get('/v1/api-keys').set(bearer(a.admin.token)).expect(200);
      expect(keys.body.items.map((k: { name: string }) => k.name)).not.toContain('after death');
    });

    it("refuses to demote, disable or delete the tenant's last active admin (409), and allows it once there is another", async () => {
      const { tenant, admin } = await loneAdminTenant();
      const path = `/v1/users/${admin.id}`;
      expectError(await t.http.patch(path).set(bearer(admin.token)).send({ role: 'member' }), 409, 'conflict');
      expectError(await t.http.patch(path).set(bearer(admin.token)).send({ disabled: true }), 409, 'conflict');
      expectError(await t.http.delete(path).set(bearer(admin.token)), 409, 'conflict');
      expect((await me(admin.token).expect(200)).body.role).toBe('admin');

      // A disabled admin is no admin to fall back on.
      const second = await createUser(t.app, tenant.id, 'admin');
      await t.http.patch(`/v1/users/${second.id}`).set(bearer(admin.token)).send({ disabled: true }).expect(200);
      expectError(await t.http.delete(path).set(bearer(admin.token)), 409, 'conflict');
      await t.http.patch(`/v1/users/${second.id}`).set(bearer(admin.token)).send({ disabled: false }).expect(200);

      await t.http.delete(path).set(bearer(admin.token)).expect(200);
      expectError(await me(admin.token), 401, 'unauthenticated');
    });

    it('two admins demoting each other at the same moment: one wins, the other is refused, an admin remains', async () => {
      for (let round = 0; round < 5; round++) {
        const { tenant, admin: first } = await loneAdminTenant();
        const second = await createUser(t.app, tenant.id, 'admin');
        const results = await Promise.all([
          t.http.patch(`/v1/users/${second.id}`).set(bearer(first.token)).send({ role: 'member' }),
          t.http.patch(`/v1/users/${first.id}`).set(bearer(second.token)).send({ role: 'member' }),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        const listed = await t.http.get(`/v1/admin/tenants/${tenant.id}/users`).set(bearer(operator.token)).expect(200);
        expect(listed.body.items.filter((u: { role: string }) => u.role === 'admin')).toHaveLength(1);
      }
    });

    it('forbids members, API keys and operators (who have no tenant) every user route', async () => {
      const target = `/v1/users/${a.admin.id}`;
      for (const headers of [bearer(a.member.token), { 'X-API-Key': a.apiKey.key }, bearer(operator.token)]) {
        expectError(await t.http.get('/v1/users').set(headers), 403, 'forbidden');
        expectError(await t.http.post('/v1/users').set(headers).send({ email: `x-${unique()}@example.test`, password: 'a long enough password', role: 'admin' }), 403, 'forbidden');
        expectError(await t.http.patch(target).set(headers).send({ role: 'member' }), 403, 'forbidden');
        expectError(await t.http.delete(target).set(headers), 403, 'forbidden');
      }
      expectError(await t.http.get('/v1/users'), 401, 'unauthenticated');
      expect((await me(a.admin.token).expect(200)).body.role).toBe('admin');
    });

    it("404s another tenant's users, which stay untouched", async () => {
      for (const victim of [b.admin, b.member]) {
        expectError(await t.http.patch(`/v1/users/${victim.id}`).set(bearer(a.admin.token)).send({ disabled: true }), 404, 'not_found');
        expectError(await t.http.patch(`/v1/users/${victim.id}`).set(bearer(a.admin.token)).send({ role: 'admin' }), 404, 'not_found');
        expectError(await t.http.delete(`/v1/users/${victim.id}`).set(bearer(a.admin.token)), 404, 'not_found');
      }
      expect((await me(b.member.token).expect(200)).body.role).toBe('member');
      await me(b.admin.token).expect(200);
      expect(ids(await t.http.get('/v1/users').set(bearer(b.admin.token)))).toEqual(expect.arrayContaining([b.admin.id, b.member.id]));
    });

    it.each(['not-a-uuid', '123', "1' OR '1'='1", randomUUID()])('404s the user id %s', async (id) => {
      expectError(await t.http.patch(`/v1/users/${encodeURIComponent(id)}`).set(bearer(a.admin.token)).send({ role: 'member' }), 404, 'not_found');
      expectError(await t.http.delete(`/v1/users/${encodeURIComponent(id)}`).set(bearer(a.admin.token)), 404, 'not_found');
    });

    it.each([
      ['nothing to change', {}],
      ['an unknown field', { email: 'new@example.test' }],
      ['the operator role', { role: 'operator' }],
      ['disabled as a string', { disabled: 'yes' }],
    ])('400s a change with %s', async (_name, body) => {
      expectError(await t.http.patch(`/v1/users/${a.member.id}`).set(bearer(a.admin.token)).send(body), 400, 'validation_failed');
    });
  });

  describe('operators, /v1/admin/tenants/{tenantId}/users', () => {
    const base = (tenantId: string) => `/v1/admin/tenants/${tenantId}/users`;

    it("lists any tenant's users", async () => {
      const res = await t.http.get(base(b.tenant.id)).set(bearer(operator.token)).expect(200);
      expect(ids(res).sort()).toEqual([b.admin.id, b.member.id].sort());
    });

    it("disables, changes and deletes a tenant's user, with the same effect on tokens", async () => {
      const user = await createUser(t.app, b.tenant.id, 'member');
      await t.http.patch(`${base(b.tenant.id)}/${user.id}`).set(bearer(operator.token)).send({ disabled: true, role: 'admin' }).expect(200);
      expectError(await me(user.token), 401, 'unauthenticated');
      const listed = await t.http.get(base(b.tenant.id)).set(bearer(operator.token)).expect(200);
      expect(listed.body.items.find((u: { id: string }) => u.id === user.id)).toMatchObject({ role: 'admin', disabled_at: expect.any(String) });
      const res = await t.http.delete(`${base(b.tenant.id)}/${user.id}`).set(bearer(operator.token)).expect(200);
      expect(res.body).toEqual({ id: user.id, revoked_api_key_ids: [] });
      expect(ids(await t.http.get(base(b.tenant.id)).set(bearer(operator.token)))).not.toContain(user.id);
    });

    it("keeps the last-admin rule for operators too", async () => {
      const { tenant, admin } = await loneAdminTenant();
      expectError(await t.http.delete(`${base(tenant.id)}/${admin.id}`).set(bearer(operator.token)), 409, 'conflict');
      expectError(await t.http.patch(`${base(tenant.id)}/${admin.id}`).set(bearer(operator.token)).send({ disabled: true }), 409, 'conflict');
      await me(admin.token).expect(200);
    });

    it("404s a user named under another tenant's path, an unknown tenant, and an operator", async () => {
      expectError(await t.http.patch(`${base(a.tenant.id)}/${b.member.id}`).set(bearer(operator.token)).send({ disabled: true }), 404, 'not_found');
      expectError(await t.http.delete(`${base(a.tenant.id)}/${b.member.id}`).set(bearer(operator.token)), 404, 'not_found');
      expectError(await t.http.get(base(randomUUID())).set(bearer(operator.token)), 404, 'not_found');
      expectError(await t.http.get(base('not-a-uuid')).set(bearer(operator.token)), 404, 'not_found');
      expectError(await t.http.delete(`${base(a.tenant.id)}/${operator.id}`).set(bearer(operator.token)), 404, 'not_found');
      await me(b.member.token).expect(200);
      await me(operator.token).expect(200);
    });

    it('forbids tenant admins and members the operators’ user routes', async () => {
      for (const user of [a.admin, a.member]) {
        expectError(await t.http.get(base(a.tenant.id)).set(bearer(user.token)), 403, 'forbidden');
        expectError(await t.http.patch(`${base(a.tenant.id)}/${a.member.id}`).set(bearer(user.token)).send({ role: 'admin' }), 403, 'forbidden');
        expectError(await t.http.delete(`${base(b.tenant.id)}/${b.member.id}`).set(bearer(user.token)), 403, 'forbidden');
      }
      await me(b.member.token).expect(200);
    });
  });

  describe('POST /v1/auth/password', () => {
    it('changes the password: the old one and every earlier token stop, the new one and the returned token work', async () => {
      const user = await createUser(t.app, a.tenant.id, 'member');
      const second = (await login(user.email, user.password).expect(200)).body.access_token;
      const newPassword = `new password ${unique()}`;
      const res = await t.http.post('/v1/auth/password').set(bearer(user.token)).send({ current_password: user.password, new_password: newPassword }).expect(200);
      expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: t.settings.jwt.ttlSeconds });
      expect((await me(res.body.access_token).expect(200)).body.user_id).toBe(user.id);
      expectError(await me(user.token), 401, 'unauthenticated');
      expectError(await me(second), 401, 'unauthenticated');
      expectError(await login(user.email, user.password), 401, 'unauthenticated');
      await login(user.email, newPassword).expect(200);
    });

    it('refuses a wrong current password with 403, and the token keeps working', async () => {
      const user = await createUser(t.app, a.tenant.id, 'member');
      expectError(
        await t.http.post('/v1/auth/password').set(bearer(user.token)).send({ current_password: 'not my password', new_password: 'another long password' }),
        403,
        'forbidden',
      );
      await me(user.token).expect(200);
      await login(user.email, user.password).expect(200);
    });

    it('lets an operator change their own password', async () => {
      const op = await createUser(t.app, null, 'operator');
      const res = await t.http.post('/v1/auth/password').set(bearer(op.token)).send({ current_password: op.password, new_password: 'operators change too' }).expect(200);
      await t.http.get('/v1/admin/tenants').set(bearer(res.body.access_token)).expect(200);
      expectError(await t.http.get('/v1/admin/tenants').set(bearer(op.token)), 401, 'unauthenticated');
    });

    it.each<[string, (user: TestUser) => object]>([
      ['a short new password', (u) => ({ current_password: u.password, new_password: 'short' })],
      ['the same password again', (u) => ({ current_password: u.password, new_password: u.password })],
      ['no current password', () => ({ new_password: 'a long new password' })],
      ['an unknown field', (u) => ({ current_password: u.password, new_password: 'a long new password', user_id: randomUUID() })],
    ])('400s %s', async (_name, bodyFor) => {
      const user = await createUser(t.app, a.tenant.id, 'member');
      expectError(await t.http.post('/v1/auth/password').set(bearer(user.token)).send(bodyFor(user)), 400, 'validation_failed');
      await login(user.email, user.password).expect(200);
      await me(user.token).expect(200);
    });

    it('is for signed-in users only: 401 without credentials, 403 for an API key', async () => {
      expectError(await t.http.post('/v1/auth/password').send({ current_password: 'x', new_password: 'a long new password' }), 401, 'unauthenticated');
      expectError(
        await t.http.post('/v1/auth/password').set('X-API-Key', a.apiKey.key).send({ current_password: 'x', new_password: 'a long new password' }),
        403,
        'forbidden',
      );
    });
  });

  // Several API processes share one PostgreSQL: the token check reads the store, so a token
  // ended through one instance is refused by the others on their next request. PGlite is one
  // process's store, so there is no second instance to ask.
  (process.env.DATABASE_URL ? describe : describe.skip)('on every instance', () => {
    let other: INestApplication;
    beforeAll(async () => {
      other = await createApp(t.settings);
      await other.init();
    });
    afterAll(() => other.close());

    it('a token disabled, re-passworded or deleted through one instance is refused by another at once', async () => {
      const otherMe = (token: string) => request(other.getHttpServer()).get('/v1/me').set(bearer(token));
      const [disabled, changed, deleted] = await Promise.all([1, 2, 3].map(() => createUser(t.app, a.tenant.id, 'member')));
      for (const user of [disabled, changed, deleted]) await otherMe(user.token).expect(200);

      await t.http.patch(`/v1/users/${disabled.id}`).set(bearer(a.admin.token)).send({ disabled: true }).expect(200);
      await t.http.post('/v1/auth/password').set(bearer(changed.token)).send({ current_password: changed.password, new_password: 'a long new password' }).expect(200);
      await t.http.delete(`/v1/users/${deleted.id}`).set(bearer(a.admin.token)).expect(200);
      for (const user of [disabled, changed, deleted]) expectError(await otherMe(user.token), 401, 'unauthenticated');
    });
  });
});
