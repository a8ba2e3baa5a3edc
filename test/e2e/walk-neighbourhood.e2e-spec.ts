import { sql } from 'drizzle-orm';
import { Database, DATABASE, GraphsRepository, queryRows } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { RetrievalRepository } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The walk's neighbourhood statement (graph-walk.queries.ts) returns its mentions as one row of
 * two JSON arrays rather than a row each. Checked against entity_chunks read directly: the first
 * hop (the entities the seed passage names) and the second (every passage naming one of them),
 * and nothing of another tenant with the same text. On the stores the environment selects.
 */
describe('the walk reads its neighbourhood in one statement', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  const texts = [
    'Ada Lovelace worked with Charles Babbage in London.',
    'Charles Babbage designed the Analytical Engine in Cambridge.',
    'The Analytical Engine inspired Alan Turing in Manchester.',
  ];

  beforeAll(async () => {
    t = await startTestApp({});
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    const documents = t.app.get(DocumentsService);
    for (const tenant of [a, b]) {
      for (const [i, text] of texts.entries()) await documents.submit(tenant.tenant.id, { name: `doc-${i}.txt`, mimeType: 'text/plain', text });
    }
    await t.app.get(IngestWorker).drain();
  });

  afterAll(async () => {
    await t?.close();
  });

  // The repository the retrieval service builds, on the primary (no replica in this test).
  const repository = () => new RetrievalRepository(t.app.get<Database>(DATABASE));

  const mentionsOf = async (tenantId: string) =>
    queryRows<{ entity_id: string; chunk_id: string; text: string }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT ec.entity_id, ec.chunk_id, c.text FROM entity_chunks ec JOIN chunks c ON c.tenant_id = ec.tenant_id AND c.id = ec.chunk_id WHERE ec.tenant_id = ${tenantId}`,
    );

  it('returns every mention within two hops of a seed passage, and only those', async () => {
    const tenantId = a.tenant.id;
    const scope = { tenantId, graphId: (await t.app.get(GraphsRepository).defaultGraph(tenantId)).id };
    const stored = (await mentionsOf(tenantId)).map((m) => ({ entityId: Number(m.entity_id), chunkId: Number(m.chunk_id), text: m.text }));
    const seed = stored.find((m) => m.text.startsWith('Ada Lovelace'))!.chunkId;
    const firstHop = new Set(stored.filter((m) => m.chunkId === seed).map((m) => m.entityId));
    // Within two hops: a mention of an entity the seed passage names (the seed's own included).
    const expected = stored.filter((m) => firstHop.has(m.entityId)).map((m) => `${m.entityId}:${m.chunkId}`);
    expect(new Set(stored.filter((m) => firstHop.has(m.entityId)).map((m) => m.chunkId)).size).toBeGreaterThan(1); // Babbage's second passage

    const found = await repository().walkNeighbourhood(scope, { entityIds: [], chunkIds: [seed], names: [], maxLinked: 10 });
    const pairs = found.mentions.map((m) => `${m.entityId}:${m.chunkId}`);
    expect(found.mentions.every((m) => Number.isSafeInteger(m.entityId) && Number.isSafeInteger(m.chunkId))).toBe(true);
    expect(new Set(pairs)).toEqual(new Set(expected));
    expect(pairs.length).toBe(new Set(pairs).size);
  });

  it('reads nothing of another tenant that holds the same text', async () => {
    const scope = { tenantId: a.tenant.id, graphId: (await t.app.get(GraphsRepository).defaultGraph(a.tenant.id)).id };
    const own = (await mentionsOf(a.tenant.id)).map((m) => Number(m.chunk_id));
    const others = new Set((await mentionsOf(b.tenant.id)).map((m) => Number(m.chunk_id)));
    const entityIds = [...new Set((await mentionsOf(a.tenant.id)).map((m) => Number(m.entity_id)))];
    const found = await repository().walkNeighbourhood(scope, { entityIds, chunkIds: own, names: ['charles babbage'], maxLinked: 10 });
    expect(found.mentions.length).toBeGreaterThan(0);
    expect(found.mentions.some((m) => others.has(m.chunkId))).toBe(false);
  });

  it('returns no mentions when nothing is near the seeds (empty arrays)', async () => {
    const scope = { tenantId: a.tenant.id, graphId: (await t.app.get(GraphsRepository).defaultGraph(a.tenant.id)).id };
    const found = await repository().walkNeighbourhood(scope, { entityIds: [], chunkIds: [], names: ['nobody here'], maxLinked: 10 });
    expect(found.mentions).toEqual([]);
    expect(found.linkedEntities.size).toBe(0);
  });
});
