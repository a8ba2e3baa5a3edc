import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '@loci/db';
import { INGEST_DOCUMENT_JOB, JobQueue, TenantBacklogs } from '@loci/ingest';
import { createApiKey, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * What operators see of a tenant's ingestion and holdings (issue 39.4): each tenant's queue on
 * the tenant list and on GET of one tenant (jobs waiting, scheduled, running, parked; documents
 * processed and failed in the last hour), and what deleting a tenant removes
 * (GET /v1/admin/tenants/{tenantId}/holdings). The worker is off: the test moves the jobs itself.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };
const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];
const EMPTY_QUEUE = { waiting: 0, scheduled: 0, running: 0, deferred: 0, oldest_waiting_seconds: 0, processed_last_hour: 0, failed_last_hour: 0 };

describe("operators' view of tenants' queues and holdings (e2e)", () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
  });
  afterAll(() => t?.close());

  const asOperator = (path: string) => t.http.get(path).set(bearer(operator.token));
  const upload = (cast: Cast) => t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name: `${randomUUID()}.txt`, text: `Alice works at Acme ${randomUUID()}.` }).expect(202);
  /** The tenant as the operators' list shows it (every page read, as the console does). */
  const listed = async (tenantId: string) => {
    for (let offset = 0; ; offset += 200) {
      const page = await asOperator(`/v1/admin/tenants?limit=200&offset=${offset}`).expect(200);
      const found = page.body.items.find((item: { id: string }) => item.id === tenantId);
      if (found || page.body.items.length < 200) return found;
    }
  };
  const queueOf = async (tenantId: string) => {
    const [inList, one] = await Promise.all([listed(tenantId), asOperator(`/v1/admin/tenants/${tenantId}`).expect(200)]);
    // (The oldest wait may have grown a second between the two reads.)
    expect({ ...one.body.queue, oldest_waiting_seconds: 0 }).toEqual({ ...inList.queue, oldest_waiting_seconds: 0 });
    return one.body.queue;
  };
  // Only A ever has jobs here, so the fair claim hands out A's.
  const claim = async () => (await t.app.get(JobQueue).claim(`test-${randomUUID()}`, [INGEST_DOCUMENT_JOB], 60_000))!;

  it('shows a tenant with nothing queued with an empty queue', async () => {
    expect(await queueOf(b.tenant.id)).toEqual(EMPTY_QUEUE);
  });

  it("counts a tenant's jobs by state, and its documents finished in the last hour", async () => {
    for (let i = 0; i < 5; i++) await upload(a);
    const queued = await queueOf(a.tenant.id);
    expect(queued).toEqual({ ...EMPTY_QUEUE, waiting: 5, oldest_waiting_seconds: expect.any(Number) });
    expect(queued.oldest_waiting_seconds).toBeGreaterThanOrEqual(0);

    const queue = t.app.get(JobQueue);
    // One at a time: a free tenant may have two jobs running.
    expect(await queue.complete(await claim())).toBe(true);
    expect(await queue.fail(await claim(), new Error('unreadable'))).toBe(true);
    expect(await queue.fail(await claim(), new Error('try later'), { retryInMs: 3_600_000 })).toBe(true);
    const running = await claim();
    expect(await queueOf(a.tenant.id)).toEqual({
      waiting: 1,
      scheduled: 1,
      running: 1,
      deferred: 0,
      oldest_waiting_seconds: expect.any(Number),
      processed_last_hour: 1,
      failed_last_hour: 1,
    });
    expect(await queueOf(b.tenant.id)).toEqual(EMPTY_QUEUE);
    expect(await queue.release(running)).toBe(true);
  });

  it('counts a suspended tenant’s parked jobs as deferred, and its queue again once resumed', async () => {
    const post = (path: string) => t.http.post(path).set(bearer(operator.token)).expect(200);
    await post(`/v1/admin/tenants/${a.tenant.id}/suspend`);
    // The retry waiting for its time is parked too.
    expect(await queueOf(a.tenant.id)).toEqual({ ...EMPTY_QUEUE, deferred: 3, processed_last_hour: 1, failed_last_hour: 1 });
    await post(`/v1/admin/tenants/${a.tenant.id}/resume`);
    expect(await queueOf(a.tenant.id)).toMatchObject({ waiting: 2, scheduled: 1, deferred: 0 });
  });

  it('leaves out work finished more than an hour ago', async () => {
    await t.app
      .get<Database>(DATABASE)
      .db.execute(sql`UPDATE jobs SET updated_at = now() - interval '61 minutes' WHERE tenant_id = ${a.tenant.id} AND status IN ('done', 'failed')`);
    expect(await queueOf(a.tenant.id)).toMatchObject({ processed_last_hour: 0, failed_last_hour: 0, waiting: 2 });
  });

  it('reads each state through its partial index, not every job the tenant ever had', async () => {
    const database = t.app.get<Database>(DATABASE);
    await database.db.execute(sql`
      INSERT INTO jobs (tenant_id, kind, status, attempts, updated_at)
      SELECT ${a.tenant.id}::uuid, ${INGEST_DOCUMENT_JOB}, 'done', 1, now() - interval '1 day' FROM generate_series(1, 10000)`);
    await database.db.execute(sql`ANALYZE jobs`);
    const [row] = await queryRows<Record<string, unknown>>(database.db, sql`EXPLAIN (FORMAT JSON) ${t.app.get(TenantBacklogs).statement([a.tenant.id, b.tenant.id])}`);
    const raw = Object.values(row)[0];
    const nodes = flatten(((typeof raw === 'string' ? JSON.parse(raw) : raw) as [{ Plan: PlanNode }])[0].Plan);
    const scans = nodes.filter((node) => node['Relation Name'] === 'jobs' && node['Node Type'].endsWith('Scan'));
    expect(scans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(new Set(scans.map((node) => node['Index Name']))).toEqual(
      new Set(['jobs_tenant_queued_idx', 'jobs_running_idx', 'jobs_tenant_deferred_idx', 'jobs_tenant_finished_idx']),
    );
    // A day old: not the last hour's work.
    expect(await queueOf(a.tenant.id)).toMatchObject({ processed_last_hour: 0, waiting: 2 });
  });

  it('counts what a tenant holds: documents and gb texts, datasets, entities, facts, users, live keys', async () => {
    const revoked = await createApiKey(t.app, a.tenant.id);
    await t.http.delete(`/v1/admin/tenants/${a.tenant.id}/api-keys/${revoked.id}`).set(bearer(operator.token)).expect(204);
    await t.http
      .post('/v1/gb/remember')
      .set('X-API-Key', a.apiKey.key)
      .send({ user_id: 'u1', text: 'Alice Johnson works at Acme Corporation in Berlin.' })
      .expect(200);
    const { body } = await asOperator(`/v1/admin/tenants/${a.tenant.id}/holdings`).expect(200);
    expect(body).toEqual({ tenant_id: a.tenant.id, documents: 6, gb_datasets: 1, entities: expect.any(Number), facts: expect.any(Number), users: 2, api_keys: 1 });
    expect(body.entities).toBeGreaterThan(0);
    expect((await asOperator(`/v1/admin/tenants/${b.tenant.id}/holdings`).expect(200)).body).toEqual({
      tenant_id: b.tenant.id,
      documents: 0,
      gb_datasets: 0,
      entities: 0,
      facts: 0,
      users: 2,
      api_keys: 1,
    });
  });

  it('refuses everyone but operators, and answers 404 for no such tenant', async () => {
    for (const path of [`/v1/admin/tenants/${a.tenant.id}/holdings`, `/v1/admin/tenants/${a.tenant.id}`, '/v1/admin/tenants']) {
      expect((await t.http.get(path).set(bearer(a.admin.token)).expect(403)).body.error.code).toBe('forbidden');
      expect((await t.http.get(path).set(bearer(b.member.token)).expect(403)).body.error.code).toBe('forbidden');
      await t.http.get(path).set('X-API-Key', a.apiKey.key).expect(403);
      await t.http.get(path).expect(401);
    }
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1"]) await asOperator(`/v1/admin/tenants/${encodeURIComponent(id)}/holdings`).expect(404);
  });

  it('answers 404 once the tenant is deleted', async () => {
    await t.http.delete(`/v1/admin/tenants/${b.tenant.id}`).set(bearer(operator.token)).expect(204);
    await asOperator(`/v1/admin/tenants/${b.tenant.id}/holdings`).expect(404);
  });
});
