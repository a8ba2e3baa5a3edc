import { DocumentsService, IngestWorker } from '@loci/ingest';
import { DATABASE, Database, documents, jobs, tenants } from '@loci/db';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The fair ingestion queue end to end (issue 34.1): tenant A uploads a backlog, then tenant B
 * one document; B's is processed among the first few, not after A's backlog (the queue handed
 * out the oldest job of any tenant before: B's came last). On the store the environment selects.
 */
describe('ingestion takes turns across tenants', () => {
  let t: TestApp;

  beforeAll(async () => {
    // Two workers in this process, so a tenant's cap of one is below what the process could run.
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_WORKER_CONCURRENCY: '2' });
  });
  afterAll(() => t.close());

  it("processes B's one document among the first, behind A's backlog of 24", async () => {
    const [a, b] = [await createTenantWithPeople(t.app), await createTenantWithPeople(t.app)];
    const submit = t.app.get(DocumentsService);
    const aIds: number[] = [];
    for (let i = 0; i < 24; i++) {
      const { document } = await submit.submit(a.tenant.id, { name: `a-${i}.txt`, mimeType: 'text/plain', text: `Person ${i} works at Company ${i}.` });
      aIds.push(document.id);
    }
    // The worker may start on A's backlog meanwhile: what counts is what went ahead of B after it arrived.
    const bArrived = new Date();
    const { document: bDocument } = await submit.submit(b.tenant.id, { name: 'b.txt', mimeType: 'text/plain', text: 'Bob works at Initech.' });
    await t.app.get(IngestWorker).drain();

    const database = t.app.get<Database>(DATABASE);
    const rows = await database.db
      .select({ id: documents.id, tenantId: documents.tenantId, processedAt: documents.processedAt })
      .from(documents)
      .where(inArray(documents.tenantId, [a.tenant.id, b.tenant.id]));
    expect(rows.every((row) => row.processedAt !== null)).toBe(true);
    const order = [...rows].sort((x, y) => x.processedAt!.getTime() - y.processedAt!.getTime() || x.id - y.id);
    const bProcessed = order.find((row) => row.tenantId === b.tenant.id && row.id === bDocument.id)!.processedAt!;
    // Claims, not finishes: a job of A's claimed just before B's may finish after it or before it.
    const claims = await database.db
      .select({ tenantId: jobs.tenantId, claimedAt: jobs.lockedAt })
      .from(jobs)
      .where(and(inArray(jobs.tenantId, [a.tenant.id, b.tenant.id]), eq(jobs.kind, 'ingest_document')));
    const bClaimed = claims.find((job) => job.tenantId === b.tenant.id)!.claimedAt!;
    const claimedAheadOfB = claims.filter((job) => job.tenantId === a.tenant.id && job.claimedAt! > bArrived && job.claimedAt! < bClaimed);
    // The one holding the queue's first turn when B arrived (B shares it, and a tie goes to the
    // job queued first), and at most one more claimed as B's was: first come, first served, all 22 or so left.
    expect(claimedAheadOfB.length).toBeLessThanOrEqual(2);
    // A's backlog was still there when B's document was done.
    expect(order.filter((row) => row.tenantId === a.tenant.id && row.processedAt! > bProcessed).length).toBeGreaterThan(10);
    expect(order.filter((row) => row.tenantId === a.tenant.id)).toHaveLength(aIds.length);
  }, 120_000);

  it("never runs more of a tenant's jobs at once than its cap, while another tenant's run beside them", async () => {
    const [a, b] = [await createTenantWithPeople(t.app), await createTenantWithPeople(t.app)];
    const database = t.app.get<Database>(DATABASE);
    await database.db.update(tenants).set({ maxRunningJobs: 1 }).where(eq(tenants.id, a.tenant.id));
    const submit = t.app.get(DocumentsService);
    for (let i = 0; i < 6; i++) await submit.submit(a.tenant.id, { name: `a-${i}.txt`, mimeType: 'text/plain', text: `Person ${i} lives in City ${i}.` });
    for (let i = 0; i < 3; i++) await submit.submit(b.tenant.id, { name: `b-${i}.txt`, mimeType: 'text/plain', text: `Robot ${i} builds Widget ${i}.` });

    // Sample the running jobs while the workers drain the queue.
    const running = sql<number>`count(*)::int`;
    const seen = { a: 0, b: 0, together: false };
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await database.db
          .select({ tenantId: jobs.tenantId, running })
          .from(jobs)
          .where(and(eq(jobs.status, 'running'), inArray(jobs.tenantId, [a.tenant.id, b.tenant.id])))
          .groupBy(jobs.tenantId);
        const of = (id: string) => rows.find((row) => row.tenantId === id)?.running ?? 0;
        seen.a = Math.max(seen.a, of(a.tenant.id));
        seen.b = Math.max(seen.b, of(b.tenant.id));
        seen.together ||= of(a.tenant.id) > 0 && of(b.tenant.id) > 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await t.app.get(IngestWorker).drain();
    sampling = false;
    await sampler;

    expect(seen.a).toBe(1);
    // The other worker served B meanwhile: the cap kept a slot for it.
    expect(seen.together).toBe(true);
    const statuses = await database.db
      .select({ status: documents.status })
      .from(documents)
      .where(inArray(documents.tenantId, [a.tenant.id, b.tenant.id]));
    expect(statuses.map((row) => row.status)).toEqual(Array(9).fill('processed'));
  }, 120_000);
});
