import { DocumentsService, IngestWorker } from '@loci/ingest';
import { DATABASE, Database, documents } from '@loci/db';
import { inArray } from 'drizzle-orm';
import { createTenantWithPeople, startTestApp, TestApp } from '@loci/testing';

/**
 * The fair ingestion queue end to end (issue 34.1): tenant A uploads a backlog, then tenant B
 * one document; B's is processed among the first few, not after A's backlog (the queue handed
 * out the oldest job of any tenant before: B's came last). On the store the environment selects.
 */
describe('ingestion takes turns across tenants', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
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
    const aheadOfB = order.filter((row) => row.tenantId === a.tenant.id && row.processedAt! > bArrived && row.processedAt! < bProcessed);
    // At most the jobs already claimed when it arrived, plus one: the workers of this process.
    expect(aheadOfB.length).toBeLessThanOrEqual(t.settings.ingest.workerConcurrency + 1);
    // A's backlog was still there when B's document was done.
    expect(order.filter((row) => row.tenantId === a.tenant.id && row.processedAt! > bProcessed).length).toBeGreaterThan(10);
    expect(order.filter((row) => row.tenantId === a.tenant.id)).toHaveLength(aIds.length);
  }, 120_000);
});
