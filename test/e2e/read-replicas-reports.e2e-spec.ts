import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Response } from 'supertest';
import { ReadRouter } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, createUser, setTenantLimits, TestUser } from '@loci/testing';
import { WorkerModule } from '../../apps/worker/src/worker.module';
import { REPLICA_SKIP_REASON, replicaOf, replicaUrl } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
type ExportRecord = { type: string } & Record<string, unknown>;

const title = replicaUrl
  ? 'usage reports, exports and reads after ingestion on a streaming replica (LOCI_TEST_REPLICA_URL)'
  : `usage reports, exports and reads after ingestion on a streaming replica: ${REPLICA_SKIP_REASON}`;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** supertest does not buffer application/x-ndjson: collect the body as text. */
function asText(res: any, callback: (error: Error | null, body: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => callback(null, text));
}

const recordsOf = (res: Response): ExportRecord[] =>
  (res.body as string)
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as ExportRecord);

/**
 * Usage reports and exports read from a real streaming replica (DATABASE_READ_URL), each
 * holding what was committed before it was asked for; and a question or a browse right after a
 * document's status says processed, where the worker that processed it is another process whose
 * ReadRouter the API never sees (apps/worker's module, here in its own application context, with
 * no replicas, as a worker is deployed). Replay is paused on the replica so that only a read that
 * waits for it, or the primary, can see the newest write; the router's counts say which it was.
 */
(replicaUrl ? describe : describe.skip)(title, () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let reads: ReadRouter;
  let a: Tenant;
  let b: Tenant;
  let operator: TestUser;

  const replica = () => replicaOf(t);
  /**
   * Runs `write` and then `read` with the replica's replay paused, resumed 300 ms into `read` (and
   * in any case after). Timed from the read, not the write: a write slower than 300 ms (the first
   * extraction of a run) would otherwise let the replica replay it before the read looked.
   */
  async function resumedDuring<T>(read: () => Promise<T>, write?: () => Promise<unknown>): Promise<T> {
    try {
      await write?.();
      const resume = new Promise((resolve) => setTimeout(resolve, 300)).then(() => replica().resumeReplay());
      const result = await read();
      await resume;
      return result;
    } finally {
      await replica().resumeReplay();
    }
  }
  const upload = (tenant: Tenant, name: string, text: string) =>
    t.http.post('/v1/documents').set('X-API-Key', tenant.apiKey.key).send({ name, text }).expect(202);
  const exportAs = (token: string, path = '/v1/export') => t.http.get(path).set(bearer(token)).buffer(true).parse(asText).expect(200);
  const entityNames = async (tenant: Tenant, q: string) =>
    ((await t.http.get(`/v1/entities?q=${encodeURIComponent(q)}`).set(bearer(tenant.member.token)).expect(200)).body.items as Array<{ name: string }>).map(
      (e) => e.name,
    );

  beforeAll(async () => {
    // The API consumes no jobs (LOCI_RUN_WORKER=false): the worker below does, as apps/worker would.
    t = await startTestApp(
      { LOCI_REPLICA_MAX_LAG_MS: '60000', LOCI_REPLICA_MAX_WAIT_MS: '3000', LOCI_RUN_WORKER: 'false' },
      { replicaUrls: [replicaUrl!] },
    );
    worker = await NestFactory.createApplicationContext(
      WorkerModule.forRoot({ ...t.settings, database: { ...t.settings.database, readUrls: [] } }),
      { logger: false },
    );
    worker.get(IngestWorker).start();
    reads = t.app.get(ReadRouter);
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    await upload(a, 'a.txt', 'Ingrid Falk works at Norrsken Bakery.');
    await upload(b, 'b.txt', 'Bertil Ahlgren works at Kvarn Logistics.');
    await worker.get(IngestWorker).drain();
    await replica().becomes('up');
  });
  afterAll(async () => {
    await replicaOf(t)
      .resumeReplay()
      .catch(() => undefined);
    await worker?.close();
    await t?.close();
  });

  it("exports a tenant's data from the replica, its own only (admin and operator routes)", async () => {
    const before = { ...reads.counts };
    const own = JSON.stringify(recordsOf(await exportAs(a.admin.token)));
    expect(own).toContain('Ingrid Falk');
    expect(own).not.toContain('Bertil Ahlgren');
    const other = JSON.stringify(recordsOf(await exportAs(operator.token, `/v1/admin/tenants/${b.tenant.id}/export`)));
    expect(other).toContain('Bertil Ahlgren');
    expect(other).not.toContain('Ingrid Falk');
    // Every page of both exports (eleven sections each, one page or more) on the replica.
    expect(reads.counts.replica).toBeGreaterThanOrEqual(before.replica + 22);
    expect(reads.counts.primary).toBe(before.primary);
    // A member exports nothing, on any server.
    await t.http.get('/v1/export').set(bearer(a.member.token)).expect(403);
  });

  it('an export holds what the tenant wrote just before it: it waits for the replica to replay it', async () => {
    await replica().pauseReplay();
    const before = { ...reads.counts };
    const records = await resumedDuring(
      async () => recordsOf(await exportAs(a.admin.token)),
      () => t.http.post('/v1/gb/remember').set('X-API-Key', a.apiKey.key).send({ user_id: 'u1', text: 'Ingrid Falk moved to Uppsala.' }).expect(200),
    );
    expect(records.filter((r) => r.type === 'document').map((r) => r.text)).toContain('Ingrid Falk moved to Uppsala.');
    expect(reads.counts.waited).toBeGreaterThan(before.waited);
    expect(reads.counts.waitedOut).toBe(before.waitedOut);
    expect(reads.counts.primary).toBe(before.primary);
  });

  it('reports usage from the replica: a tenant admin its own tenant only, an operator any', async () => {
    const before = { ...reads.counts };
    const own = await t.http.get(`/v1/usage?tenant_id=${b.tenant.id}`).set(bearer(a.admin.token)).expect(200);
    expect(own.body.items.map((i: { tenant_id: string }) => i.tenant_id)).toEqual([a.tenant.id]);
    expect(own.body.items[0].documents).toBeGreaterThanOrEqual(1); // a.txt, and the text the test before remembered
    const ofB = await t.http.get(`/v1/admin/usage?tenant_id=${b.tenant.id}`).set(bearer(operator.token)).expect(200);
    expect(ofB.body.items.map((i: { tenant_id: string }) => i.tenant_id)).toEqual([b.tenant.id]);
    const all = await t.http.get('/v1/admin/usage').set(bearer(operator.token)).expect(200);
    expect(all.body.items.map((i: { tenant_id: string }) => i.tenant_id)).toEqual(expect.arrayContaining([a.tenant.id, b.tenant.id]));
    expect(reads.counts.replica).toBe(before.replica + 3);
    expect(reads.counts.primary).toBe(before.primary);
    await t.http.get('/v1/admin/usage').set(bearer(a.admin.token)).expect(403);
  });

  it('a usage report counts the refusals its own request wrote: it waits for the replica to replay them', async () => {
    const c = await createTenantWithPeople(t.app);
    await setTenantLimits(t.app, c.tenant.id, { dailyCostCapMicros: 0, monthlyCostCapMicros: null, dailyQueryQuota: null, maxConcurrentQueries: null });
    await replica().pauseReplay();
    const before = { ...reads.counts };
    const usage = await resumedDuring(
      () => t.http.get('/v1/usage').set(bearer(c.admin.token)).expect(200),
      // Counted in this process, written by the usage request's flush (or the second's timer): after replay paused either way.
      async () => {
        for (let i = 0; i < 2; i++) await t.http.post('/v1/query').set(bearer(c.member.token)).send({ query: 'Where does Ingrid work?' }).expect(402);
      },
    );
    expect(usage.body.items).toEqual([expect.objectContaining({ tenant_id: c.tenant.id, refusals: { cost_cap_exceeded: 2 } })]);
    expect(reads.counts.waited).toBeGreaterThan(before.waited);
    expect(reads.counts.waitedOut).toBe(before.waitedOut);
    expect(reads.counts.primary).toBe(before.primary);
  });

  it("a browse or a question right after the status says processed sees the document, though another process's worker processed it", async () => {
    expect(worker.get(ReadRouter).routes).toBe(false); // the worker's process notes nothing the API could see
    await replica().pauseReplay();
    try {
      const { body } = await upload(a, 'greta.txt', 'Greta Holm works at Acme Corporation.');
      await worker.get(IngestWorker).drain();
      // Before the client is told it is processed, this process has no note: the paused replica answers, without it.
      expect(await entityNames(a, 'greta')).toEqual([]);
      const status = await t.http.get(`/v1/documents/${body.document_id}`).set('X-API-Key', a.apiKey.key).expect(200);
      expect(status.body.status).toBe('processed');
      const before = { ...reads.counts };
      const names = await resumedDuring(() => entityNames(a, 'greta'));
      expect(names).toContain('Greta Holm');
      expect(reads.counts.waited).toBeGreaterThan(before.waited);
      expect(reads.counts.waitedOut).toBe(before.waitedOut);
      expect(reads.counts.primary).toBe(before.primary);
    } finally {
      await replica().resumeReplay();
    }
    // Another tenant finds nothing of it, on the replica too.
    expect(await entityNames(b, 'greta')).toEqual([]);
  });

  it('a question right after the document list says processed sees the document', async () => {
    await replica().pauseReplay();
    try {
      await upload(a, 'hugo.txt', 'Hugo Lindgren works at Zephyr Optics.');
      await worker.get(IngestWorker).drain();
      const list = await t.http.get('/v1/documents?status=processed').set('X-API-Key', a.apiKey.key).expect(200);
      expect(list.body.items.map((d: { name: string }) => d.name)).toContain('hugo.txt');
      const before = { ...reads.counts };
      const answer = await resumedDuring(() =>
        t.http.post('/v1/query').set('X-API-Key', a.apiKey.key).send({ query: 'Where does Hugo Lindgren work?', mode: 'naive' }).expect(200),
      );
      expect(JSON.stringify(answer.body)).toContain('Zephyr Optics');
      expect(reads.counts.waited).toBeGreaterThan(before.waited);
      expect(reads.counts.waitedOut).toBe(before.waitedOut);
      expect(reads.counts.primary).toBe(before.primary);
    } finally {
      await replica().resumeReplay();
    }
    const other = await t.http.post('/v1/query').set('X-API-Key', b.apiKey.key).send({ query: 'Where does Hugo Lindgren work?', mode: 'naive' }).expect(200);
    expect(JSON.stringify(other.body)).not.toContain('Zephyr');
  });
});
