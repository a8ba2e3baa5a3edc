import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import Redis from 'ioredis';
import request, { type Response } from 'supertest';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, queryRows, UsersRepository } from '@loci/db';
import { GeoBackfill, INGEST_DOCUMENT_JOB, IngestWorker, JobQueue } from '@loci/ingest';
import { limitKeys } from '@loci/quota';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { createApp } from '../../apps/api/src/create-app';
import { McpOAuthProvider } from '../../apps/api/src/mcp/oauth/mcp-oauth.provider';
import { RefusalCounter } from '../../apps/api/src/limits/refusal-counter';

/**
 * Tenant lifecycle (issue 15.3): an operator suspends a tenant (every request refused with
 * `tenant_suspended` in each surface's shape, its jobs not claimed), resumes it, and deletes it
 * with every row in every table and its limit keys. The worker is started by hand, so what the
 * queue hands out while a tenant is suspended is observed, not raced.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const MALFORMED_IDS = ['not-a-uuid', '123', `${randomUUID()}x`, "1' OR '1'='1"];

function expectSuspended(res: Response, surface: 'fastapi' | 'gb' | 'generic'): void {
  expect(res.status).toBe(403);
  const refusal = { error: 'tenant_suspended', message: expect.any(String) };
  if (surface === 'fastapi') expect(res.body).toEqual({ detail: refusal });
  if (surface === 'gb') expect(res.body).toEqual(refusal);
  if (surface === 'generic') {
    expect(res.body).toEqual({ error: { code: 'tenant_suspended', message: expect.any(String) }, request_id: res.headers['x-request-id'] });
  }
}

describe('tenant lifecycle (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;
  let redis: Redis | undefined;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    if (process.env.REDIS_URL) redis = new Redis(process.env.REDIS_URL);
  });
  afterAll(async () => {
    redis?.disconnect();
    await t.close();
  });

  const asOperator = {
    get: (path: string) => t.http.get(path).set(bearer(operator.token)),
    post: (path: string) => t.http.post(path).set(bearer(operator.token)),
    patch: (path: string, body: object) => t.http.patch(path).set(bearer(operator.token)).send(body),
    delete: (path: string) => t.http.delete(path).set(bearer(operator.token)),
  };
  const queue = () => t.app.get(JobQueue);
  const worker = () => t.app.get(IngestWorker);
  const upload = (cast: Cast, text: string) =>
    t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name: `${randomUUID()}.txt`, text });
  const jobsOf = (tenantId: string) =>
    queryRows<{ status: string; last_error: string | null }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT status, last_error FROM jobs WHERE tenant_id = ${tenantId} ORDER BY id`,
    );

  /** One request on each surface, by each kind of caller of the tenant. */
  const requestsOf = (cast: Cast) => ({
    memberQuery: () => t.http.post('/v1/query').set(bearer(cast.member.token)).send({ query: 'Where does Alice work?' }),
    keyQuery: () => t.http.post('/v1/query').set('X-API-Key', cast.apiKey.key).send({ query: 'Where does Alice work?' }),
    memberDocuments: () => t.http.get('/v1/documents').set(bearer(cast.member.token)),
    memberMe: () => t.http.get('/v1/me').set(bearer(cast.member.token)),
    keyGbQuery: () => t.http.post('/v1/gb/query').set('X-API-Key', cast.apiKey.key).send({ user_id: 'u1', query: 'Where does Alice work?' }),
    keyRemember: () => t.http.post('/v1/gb/remember').set('X-API-Key', cast.apiKey.key).send({ user_id: 'u1', text: 'Alice works at Acme.' }),
    keyUpload: () => upload(cast, `Carol works at Initech ${randomUUID()}.`),
    adminUsage: () => t.http.get('/v1/usage').set(bearer(cast.admin.token)),
  });

  describe('suspend and resume', () => {
    let queuedBeforeSuspension: string;

    it('suspends: the tenant row says since when, and its queued jobs are parked', async () => {
      const created = await upload(a, `Alice works at Acme ${randomUUID()}.`).expect(202);
      queuedBeforeSuspension = created.body.document_id;
      expect(await jobsOf(a.tenant.id)).toEqual([{ status: 'queued', last_error: null }]);

      const suspended = await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/suspend`).expect(200);
      expect(suspended.body).toMatchObject({ id: a.tenant.id, suspended_at: expect.any(String) });
      expect(await jobsOf(a.tenant.id)).toEqual([{ status: 'deferred', last_error: 'deferred: tenant suspended' }]);
      const shown = await asOperator.get(`/v1/admin/tenants/${a.tenant.id}`).expect(200);
      expect(shown.body.suspended_at).toBe(suspended.body.suspended_at);
      // Suspending again keeps the first instant.
      const again = await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/suspend`).expect(200);
      expect(again.body.suspended_at).toBe(suspended.body.suspended_at);
    });

    it('refuses every request of the suspended tenant, JWT and API key, in each surface’s shape', async () => {
      const r = requestsOf(a);
      expectSuspended(await r.memberQuery(), 'fastapi');
      expectSuspended(await r.keyQuery(), 'fastapi');
      expectSuspended(await r.memberDocuments(), 'generic');
      expectSuspended(await r.memberMe(), 'generic');
      expectSuspended(await r.adminUsage(), 'generic');
      expectSuspended(await r.keyGbQuery(), 'gb');
      expectSuspended(await r.keyRemember(), 'gb');
      expectSuspended(await r.keyUpload(), 'generic');
      expectSuspended(await t.http.get('/v1/export').set(bearer(a.admin.token)), 'generic');
    });

    it('serves the other tenant as before, and operators', async () => {
      const r = requestsOf(b);
      await r.memberMe().expect(200);
      await r.memberDocuments().expect(200);
      await r.keyRemember().expect(200);
      await r.keyGbQuery().expect(200);
      await asOperator.get('/v1/admin/tenants').expect(200);
      // The operator's own view of the suspended tenant, and its export, stay open.
      await asOperator.get(`/v1/admin/tenants/${a.tenant.id}/export`).expect(200);
    });

    it('does not claim the suspended tenant’s jobs, even one queued after the suspension', async () => {
      // A job of no document: once run, it finds nothing to do and is done.
      const jobId = await queue().enqueue(a.tenant.id, INGEST_DOCUMENT_JOB, { documentId: 0 });
      expect(await queue().claim('test-worker', [INGEST_DOCUMENT_JOB], 60_000)).toBeNull();
      expect(await queue().get(a.tenant.id, jobId)).toMatchObject({ status: 'deferred', attempts: 0, lastError: 'deferred: tenant suspended' });
      // The periodic sweep that re-queues jobs deferred at a cost cap leaves them parked.
      await worker().resumeDeferred();
      await worker().resumeDeferred(a.tenant.id);
      expect((await jobsOf(a.tenant.id)).map((j) => j.status)).toEqual(['deferred', 'deferred']);
    });

    it('keeps suspend, resume, delete and the tenant export to operators', async () => {
      for (const who of [a.admin, a.member, b.admin]) {
        for (const call of [
          t.http.post(`/v1/admin/tenants/${a.tenant.id}/suspend`),
          t.http.post(`/v1/admin/tenants/${b.tenant.id}/resume`),
          t.http.delete(`/v1/admin/tenants/${b.tenant.id}`),
          t.http.get(`/v1/admin/tenants/${b.tenant.id}/export`),
        ]) {
          const res = await call.set(bearer(who.token));
          expect(res.status).toBe(403);
        }
      }
      for (const call of [t.http.post(`/v1/admin/tenants/${b.tenant.id}/suspend`), t.http.delete(`/v1/admin/tenants/${b.tenant.id}`)]) {
        expect((await call.set('X-API-Key', b.apiKey.key)).status).toBe(403);
      }
      await requestsOf(b).memberMe().expect(200);
    });

    it.each(MALFORMED_IDS)('404s a malformed tenant id on every lifecycle route: %s', async (id) => {
      const path = `/v1/admin/tenants/${encodeURIComponent(id)}`;
      for (const res of [
        await asOperator.post(`${path}/suspend`),
        await asOperator.post(`${path}/resume`),
        await asOperator.delete(path),
        await asOperator.get(`${path}/export`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    });

    it('resumes: requests are served again and the parked jobs run', async () => {
      const resumed = await asOperator.post(`/v1/admin/tenants/${a.tenant.id}/resume`).expect(200);
      expect(resumed.body.suspended_at).toBeNull();
      expect((await jobsOf(a.tenant.id)).map((j) => j.status)).toEqual(['queued', 'queued']);
      const r = requestsOf(a);
      await r.memberMe().expect(200);
      await r.keyRemember().expect(200);
      worker().start();
      await worker().drain();
      const document = await t.http.get(`/v1/documents/${queuedBeforeSuspension}`).set('X-API-Key', a.apiKey.key).expect(200);
      expect(document.body.status).toBe('processed');
      expect((await jobsOf(a.tenant.id)).map((j) => j.status)).toEqual(['done', 'done']);
    });
  });

  describe('delete', () => {
    /** Every table of the schema with a tenant_id column, read from the catalog so none is forgotten. */
    async function tenantTables(): Promise<string[]> {
      const rows = await queryRows<{ table_name: string }>(
        t.app.get<Database>(DATABASE).db,
        sql`SELECT table_name FROM information_schema.columns
             WHERE column_name = 'tenant_id' AND table_schema = current_schema() ORDER BY table_name`,
      );
      return rows.map((r) => r.table_name);
    }

    async function rowCounts(tenantId: string): Promise<Record<string, number>> {
      const db = t.app.get<Database>(DATABASE).db;
      const counts: Record<string, number> = {};
      for (const table of await tenantTables()) {
        const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE tenant_id = ${tenantId}`);
        counts[table] = row.n;
      }
      const [tenantRow] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM tenants WHERE id = ${tenantId}`);
      counts.tenants = tenantRow.n;
      return counts;
    }

    async function limitKeysOf(tenantId: string): Promise<string[]> {
      const found: string[] = [];
      for await (const keys of redis!.scanStream({ match: limitKeys.tenantPattern(tenantId), count: 500 }) as AsyncIterable<string[]>) found.push(...keys);
      return found.sort();
    }

    /** Something in every table: a processed document, gb memory, answered (and counted) and refused questions. */
    async function populate(cast: Cast): Promise<void> {
      await upload(cast, `Dana Scully works at the FBI in Washington ${randomUUID()}.`).expect(202);
      await worker().drain();
      await t.http.post('/v1/gb/remember').set('X-API-Key', cast.apiKey.key).send({ user_id: 'u1', text: 'Fox Mulder lives in Virginia.' }).expect(200);
      // The geo backfill's progress (what a start with geo on would run).
      await t.app.get(GeoBackfill).locateStoredPlaces(cast.tenant.id);
      // Under a quota, so the answered question is on record (question_counts).
      await asOperator.patch(`/v1/admin/tenants/${cast.tenant.id}/limits`, { daily_query_quota: 10 }).expect(200);
      await t.http.post('/v1/query').set(bearer(cast.member.token)).send({ query: 'Where does Dana Scully work?' }).expect(200);
      await asOperator.patch(`/v1/admin/tenants/${cast.tenant.id}/limits`, { daily_query_quota: 0 }).expect(200);
      await t.http.post('/v1/query').set(bearer(cast.member.token)).send({ query: 'Where does Dana Scully work?' }).expect(429);
      // Refusal counts are written once a second (RefusalCounter): written now, as a usage read would.
      await t.app.get(RefusalCounter).flush();
      // An MCP client the member authorized: its code and tokens (mcp_oauth_codes, mcp_oauth_tokens).
      const mcp = t.app.get(McpOAuthProvider);
      const client = await mcp.clientsStore.registerClient!({ client_id: randomUUID(), redirect_uris: ['http://127.0.0.1:9/cb'] } as Parameters<NonNullable<typeof mcp.clientsStore.registerClient>>[0]);
      const consent = { clientId: client.client_id, redirectUri: 'http://127.0.0.1:9/cb', codeChallenge: 'x'.repeat(43), scopes: ['read' as const], resource: 'http://127.0.0.1/mcp', nonce: 'n', expiresAt: Date.now() + 60_000 };
      const code = await mcp.createCode(consent, { ...(await t.app.get(UsersRepository).findById(cast.member.id))!, tenantId: cast.tenant.id });
      await mcp.exchangeAuthorizationCode(client, code);
    }

    it('removes every row of the tenant in every table and its limit keys; the other tenant keeps all of its own', async () => {
      const [doomed, kept] = [await createTenantWithPeople(t.app), await createTenantWithPeople(t.app)];
      await populate(doomed);
      await populate(kept);

      const before = await rowCounts(doomed.tenant.id);
      const keptBefore = await rowCounts(kept.tenant.id);
      expect(Object.keys(before).length).toBeGreaterThanOrEqual(17);
      // Every table holds rows of the tenant, or the test would prove nothing about it.
      for (const [table, n] of Object.entries(before)) expect([table, n > 0]).toEqual([table, true]);
      const keysBefore = redis ? await limitKeysOf(doomed.tenant.id) : [];
      const keptKeysBefore = redis ? await limitKeysOf(kept.tenant.id) : [];
      if (redis) {
        expect(keysBefore.length).toBeGreaterThan(0);
        expect(keptKeysBefore.length).toBeGreaterThan(0);
      }

      await asOperator.delete(`/v1/admin/tenants/${doomed.tenant.id}`).expect(204);

      const after = await rowCounts(doomed.tenant.id);
      expect(after).toEqual(Object.fromEntries(Object.keys(before).map((table) => [table, 0])));
      expect(await rowCounts(kept.tenant.id)).toEqual(keptBefore);
      if (redis) {
        expect(await limitKeysOf(doomed.tenant.id)).toEqual([]);
        expect(await limitKeysOf(kept.tenant.id)).toEqual(keptKeysBefore);
      }
      // The other tenant is served as before.
      await t.http.get('/v1/documents').set(bearer(kept.member.token)).expect(200);
    });

    it('refuses the deleted tenant’s credentials, and a second delete is a 404', async () => {
      const doomed = await createTenantWithPeople(t.app);
      await asOperator.delete(`/v1/admin/tenants/${doomed.tenant.id}`).expect(204);
      expect((await t.http.get('/v1/me').set(bearer(doomed.member.token))).status).toBe(401);
      expect((await t.http.get('/v1/me').set('X-API-Key', doomed.apiKey.key)).status).toBe(401);
      expect((await t.http.post('/v1/gb/query').set('X-API-Key', doomed.apiKey.key).send({ user_id: 'u1', query: 'x' })).status).toBe(401);
      await asOperator.delete(`/v1/admin/tenants/${doomed.tenant.id}`).expect(404);
      await asOperator.get(`/v1/admin/tenants/${doomed.tenant.id}`).expect(404);
    });

    it('deletes a tenant whose document is still queued; the worker carries on with the others', async () => {
      await worker().onApplicationShutdown(); // stop the runner: the job stays queued
      const doomed = await createTenantWithPeople(t.app);
      const queued = await upload(doomed, `Walter Skinner works at the FBI ${randomUUID()}.`).expect(202);
      expect((await jobsOf(doomed.tenant.id)).map((j) => j.status)).toEqual(['queued']);
      await asOperator.delete(`/v1/admin/tenants/${doomed.tenant.id}`).expect(204);
      expect(await jobsOf(doomed.tenant.id)).toEqual([]);

      const other = await upload(b, `Monica Reyes works at the FBI ${randomUUID()}.`).expect(202);
      worker().start();
      await worker().drain();
      const processed = await t.http.get(`/v1/documents/${other.body.document_id}`).set('X-API-Key', b.apiKey.key).expect(200);
      expect(processed.body.status).toBe('processed');
      expect(queued.body.document_id).toEqual(expect.any(String));
    });
  });

  // Several API processes share one PostgreSQL: each reads the tenant's state with the
  // credential, so a suspension made through one instance holds on the others from their next
  // request, for dashboard tokens and API keys alike. PGlite is one process's store. Last in the
  // file: passport's strategies are process-wide, and the second app's go with it when it closes.
  (process.env.DATABASE_URL ? describe : describe.skip)('on every instance', () => {
    let other: INestApplication;
    beforeAll(async () => {
      other = await createApp(t.settings);
      await other.init();
    });
    afterAll(() => other.close());

    it('a tenant suspended through one instance is refused by another at once, and served again once resumed', async () => {
      const cast = await createTenantWithPeople(t.app);
      const otherMe = () => request(other.getHttpServer()).get('/v1/me').set(bearer(cast.member.token));
      const otherKey = () => request(other.getHttpServer()).get('/v1/me').set('X-API-Key', cast.apiKey.key);
      await otherMe().expect(200);
      await otherKey().expect(200);

      await asOperator.post(`/v1/admin/tenants/${cast.tenant.id}/suspend`).expect(200);
      expectSuspended(await otherMe(), 'generic');
      expectSuspended(await otherKey(), 'generic');

      await asOperator.post(`/v1/admin/tenants/${cast.tenant.id}/resume`).expect(200);
      await otherMe().expect(200);
      await otherKey().expect(200);
    });
  });
});
