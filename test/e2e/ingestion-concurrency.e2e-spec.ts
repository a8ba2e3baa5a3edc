import { Database, DATABASE, GraphReadsRepository, GraphsRepository, queryRows } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { sql } from 'drizzle-orm';

/** Six facts about ten entities; every document states all of them, in its own order. */
const FACTS = [
  ['Alice Johnson works at Acme Corporation.', 'Alice Johnson', 'works_at', 'Acme Corporation'],
  ['Bob Smith lives in Paris.', 'Bob Smith', 'lives_in', 'Paris'],
  ['Carol Diaz works at Globex Industries.', 'Carol Diaz', 'works_at', 'Globex Industries'],
  ['Dan Brown lives in Berlin.', 'Dan Brown', 'lives_in', 'Berlin'],
  ['Acme Corporation acquired Globex Industries.', 'Acme Corporation', 'acquired', 'Globex Industries'],
  ['Eve Adams works at Initech.', 'Eve Adams', 'works_at', 'Initech'],
] as const;
const DOCUMENTS = 12;

/** The k-th permutation of the facts (distinct for k < 6!), so each document names them in another order. */
function permutation(k: number): string[] {
  const pool: string[] = FACTS.map(([sentence]) => sentence);
  const out: string[] = [];
  for (let n = pool.length; n > 0; n--) {
    out.push(pool.splice(k % n, 1)[0]);
    k = Math.floor(k / n);
  }
  return out;
}

/**
 * Many documents naming the same entities in different orders, ingested at once by a worker
 * running eight of them together on the real store. Every document must end processed, and
 * the graph must hold each entity once and each fact once, stated by every document.
 */
describe('concurrent ingestion of documents naming the same entities', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      LOCI_RUN_WORKER: 'false',
      LOCI_WORKER_CONCURRENCY: '8',
      LOCI_DB_POOL_MAX: '12',
    });
  });
  afterAll(() => t.close());

  it('processes every document, with one entity per name and every fact merged', async () => {
    const tenant = await createTenant(t.app);
    const documents = t.app.get(DocumentsService);
    const ids: number[] = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      // Spread over the permutations so that neighbours differ in their first entities too.
      const text = permutation((i * 97) % 720).join(' ');
      const { document } = await documents.submit(tenant.id, {
        name: `doc-${i}`,
        text,
        mimeType: 'text/plain',
        documentDate: new Date('2024-01-01T00:00:00Z'),
      });
      ids.push(document.id);
    }
    expect(new Set(ids).size).toBe(DOCUMENTS);

    const worker = t.app.get(IngestWorker);
    worker.start();
    try {
      await worker.drain();
    } finally {
      await worker.onApplicationShutdown();
    }

    const statuses = await Promise.all(ids.map(async (id) => (await documents.get(tenant.id, id)).document));
    expect(statuses.map((d) => [d.name, d.status, d.statusReason])).toEqual(ids.map((_, i) => [`doc-${i}`, 'processed', null]));

    const graph = await t.app.get(GraphsRepository).defaultGraph(tenant.id);
    const { entities, edges } = await t.app.get(GraphReadsRepository).graphContents(tenant.id, graph.id);
    const names = [...new Set(FACTS.flatMap(([, source, , target]) => [source, target]))];
    expect(entities.map((e) => e.name).sort()).toEqual([...names].sort());
    const perName = await queryRows<{ normalized_name: string; n: number }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT normalized_name, count(*)::int AS n FROM entities
          WHERE tenant_id = ${tenant.id} AND graph_id = ${graph.id} GROUP BY normalized_name HAVING count(*) > 1`,
    );
    expect(perName).toEqual([]);

    const nameOf = new Map(entities.map((e) => [e.id, e.name]));
    const facts = edges.map((e) => [nameOf.get(e.sourceId), e.relation, nameOf.get(e.targetId), e.weight, e.expiredAt]);
    expect(facts.sort()).toEqual(FACTS.map(([, source, relation, target]) => [source, relation, target, DOCUMENTS, null]).sort());

    // Every document supports every entity and every fact.
    const support = await queryRows<{ kind: string; n: number }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT 'entity' AS kind, count(*)::int AS n FROM entity_documents WHERE tenant_id = ${tenant.id}
          UNION ALL SELECT 'edge', count(*)::int FROM edge_documents WHERE tenant_id = ${tenant.id}`,
    );
    expect(Object.fromEntries(support.map((r) => [r.kind, Number(r.n)]))).toEqual({
      entity: names.length * DOCUMENTS,
      edge: FACTS.length * DOCUMENTS,
    });
  });
});
