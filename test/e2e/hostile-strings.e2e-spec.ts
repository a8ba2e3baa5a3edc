import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '@loci/db';
import { JWT_AUDIENCE, JWT_ISSUER } from '@loci/auth';
import { createTenant, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';

/**
 * Issue 13, item 2: strings PostgreSQL cannot store (NUL, lone surrogates) and control
 * characters in identifiers answer the surface's 4xx naming the field, or are stripped from
 * free text, never a 500; JWT claims that are not UUIDs are a 401 and write nothing.
 */
describe('hostile strings and claims', () => {
  let t: TestApp;
  let operator: TestUser;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    operator = await createUser(t.app, null, 'operator');
    a = await createTenantWithPeople(t.app);
  });
  afterAll(() => t.close());

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const fieldsOf = (body: { error: { details?: { field: string }[] } }) => body.error.details?.map((d) => d.field);

  describe('generic surface: identifiers and names are rejected with 400 naming the field', () => {
    it('login email', async () => {
      const response = await t.http.post('/v1/auth/login').send({ email: `a${NUL}@example.test`, password: 'whatever-password' }).expect(400);
      expect(fieldsOf(response.body)).toEqual(['email']);
    });

    it.each([
      ['NUL', `Acme${NUL}`],
      ['a lone surrogate', `Acme${LONE_SURROGATE}`],
      ['a control character', 'Acme\u0007'],
    ])('tenant name with %s', async (_what, name) => {
      const response = await t.http.post('/v1/admin/tenants').set(bearer(operator.token)).send({ name }).expect(400);
      expect(fieldsOf(response.body)).toEqual(['name']);
    });

    it('API key name, on the operator and the self-service routes', async () => {
      const byOperator = await t.http
        .post(`/v1/admin/tenants/${a.tenant.id}/api-keys`)
        .set(bearer(operator.token))
        .send({ name: `key${NUL}` })
        .expect(400);
      expect(fieldsOf(byOperator.body)).toEqual(['name']);
      const byAdmin = await t.http.post('/v1/api-keys').set(bearer(a.admin.token)).send({ name: `key${NUL}` }).expect(400);
      expect(fieldsOf(byAdmin.body)).toEqual(['name']);
    });

    it('document name', async () => {
      const response = await t.http.post('/v1/documents').set(bearer(a.apiKey.key)).send({ name: `doc${NUL}`, text: 'Some text.' }).expect(400);
      expect(fieldsOf(response.body)).toEqual(['name']);
    });

    it.each([
      ['NUL', `sk-ant-${NUL}abc`],
      ['a control character', 'sk-ant-\u0001abc'],
      ['a newline inside', 'sk-ant-abc\ndef'],
    ])('own LLM key with %s', async (_what, apiKey) => {
      const tenant = await createTenant(t.app);
      const response = await t.http
        .put(`/v1/admin/tenants/${tenant.id}/llm-key`)
        .set(bearer(operator.token))
        .send({ provider: 'anthropic', api_key: apiKey })
        .expect(400);
      expect(fieldsOf(response.body)).toEqual(['api_key']);
    });
  });

  describe('free text has NUL removed', () => {
    it('document text is stored without its NUL characters', async () => {
      const response = await t.http
        .post('/v1/documents')
        .set(bearer(a.apiKey.key))
        .send({ name: 'with nul', text: `Alice works${NUL} at Acme.` })
        .expect(202);
      const db = t.app.get<Database>(DATABASE).db;
      const [row] = await queryRows<{ text: string }>(
        db,
        sql`SELECT text FROM documents WHERE tenant_id = ${a.tenant.id} AND id = ${Number(response.body.document_id)}`,
      );
      expect(row.text).toBe('Alice works at Acme.');
    });

  });

  describe('uploads', () => {
    it('a file name that is no document name asks for a `name`', async () => {
      // (busboy refuses control characters in a part's header itself: 400 before Loci sees them.)
      const tooLong = `${'c'.repeat(500)}.txt`;
      const response = await t.http.post('/v1/documents').set(bearer(a.apiKey.key)).attach('file', Buffer.from('Carol works at Initech.'), tooLong).expect(400);
      expect(fieldsOf(response.body)).toEqual(['file']);
      await t.http
        .post('/v1/documents')
        .set(bearer(a.apiKey.key))
        .field('name', 'carol.txt')
        .attach('file', Buffer.from('Carol works at Initech.'), tooLong)
        .expect(202);
    });
  });

  describe('gb surface: {"error": "..."} naming the field', () => {
    it.each([
      ['NUL', `u${NUL}1`],
      ['a lone surrogate', `u${LONE_SURROGATE}1`],
    ])('user_id with %s on remember and query', async (_what, userId) => {
      const remember = await t.http.post('/v1/gb/remember').set(bearer(a.apiKey.key)).send({ user_id: userId, text: 'Alice works at Acme.' }).expect(400);
      expect(remember.body.error).toMatch(/^user_id /);
      const query = await t.http.post('/v1/gb/query').set(bearer(a.apiKey.key)).send({ user_id: userId, query: 'Where does Alice work?' }).expect(400);
      expect(query.body.error).toMatch(/^user_id /);
    });

    it('remember text with NUL is remembered without it', async () => {
      const response = await t.http
        .post('/v1/gb/remember')
        .set(bearer(a.apiKey.key))
        .send({ user_id: 'nul-text', text: `Alice works at Acme${NUL}.` })
        .expect(200);
      expect(response.body.duplicate).toBe(false);
    });

    it('?user_id=%00 on the dataset routes', async () => {
      const list = await t.http.get('/v1/gb/datasets?user_id=%00').set(bearer(a.apiKey.key)).expect(400);
      expect(list.body.error).toMatch(/^user_id /);
      const remove = await t.http.delete('/v1/gb/datasets/main?user_id=%00').set(bearer(a.apiKey.key)).expect(400);
      expect(remove.body.error).toMatch(/^user_id /);
    });

    it('a trajectory id that is not a request id is a 404', async () => {
      const response = await t.http.get('/v1/gb/trajectories/%00').set(bearer(a.apiKey.key)).expect(404);
      expect(typeof response.body.error).toBe('string');
      // A surrogate's UTF-8 form (CESU-8), which no well-formed URL carries, and a bare 0xFF.
      for (const path of ['/v1/gb/trajectories/%ED%A0%80', '/v1/gb/trajectories/%FF']) {
        const malformed = await t.http.get(path).set(bearer(a.apiKey.key));
        expect([400, 404]).toContain(malformed.status);
        expect(typeof malformed.body.error).toBe('string');
      }
    });
  });

  describe('JWT claims that are not UUIDs', () => {
    const sign = (claims: Record<string, unknown>) =>
      t.app.get(JwtService).signAsync(claims, { algorithm: 'HS256', issuer: JWT_ISSUER, audience: JWT_AUDIENCE, expiresIn: 600 });
    const graphRows = async () =>
      Number((await queryRows<{ n: number }>(t.app.get<Database>(DATABASE).db, sql`SELECT count(*)::int AS n FROM graphs`))[0].n);

    it('a tid that is not a uuid is a 401 and writes nothing', async () => {
      const before = await graphRows();
      const token = await sign({ sub: randomUUID(), tid: 'not-a-uuid', role: 'admin' });
      const response = await t.http.get('/v1/documents').set(bearer(token)).expect(401);
      expect(response.body.error.code).toBe('unauthenticated');
      expect(await graphRows()).toBe(before);
    });

    it('a sub that is not a uuid is a 401', async () => {
      const token = await sign({ sub: `x${NUL}`, tid: a.tenant.id, role: 'admin' });
      await t.http.post('/v1/api-keys').set(bearer(token)).send({ name: 'k' }).expect(401);
    });

    it('an operator token carrying a tid that is not a uuid is a 401', async () => {
      const token = await sign({ sub: randomUUID(), tid: 'nope', role: 'operator' });
      await t.http.get('/v1/admin/tenants').set(bearer(token)).expect(401);
    });
  });
});
