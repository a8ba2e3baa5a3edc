import { sql } from 'drizzle-orm';
import { Database, DATABASE, GraphsRepository, queryRows, TableStatisticsKeeper } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A tenant small against the store is planned with its own size, not as if empty: the table-wide
 * rule (autovacuum's: 10% of the table's rows changed) never fires for a few hundred rows beside
 * 20 000, so the statistics keeper also checks the estimate of each graph ingestion wrote to
 * (docs/decisions/0008-planner-statistics.md, "Planner statistics are kept by Loci"). Nothing is timed; estimates are
 * read with EXPLAIN.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const LARGE_TENANT_ENTITIES = 20_000;
const SMALL_TENANT_DOCUMENTS = 60;

const FIRST = ['Alice', 'Bruno', 'Chiara', 'Dmitri', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ingrid', 'Jonas'];
const LAST = ['Almeida', 'Berger', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Hansen', 'Ivanova', 'Jensen'];
const PLACES = ['Lisbon', 'Porto', 'Berlin', 'Paris', 'Madrid', 'Rome', 'Vienna', 'Prague', 'Oslo', 'Dublin'];

/** A short text naming two people and two places: new people in every text. */
const documentText = (i: number) => {
  const person = (j: number) => `${FIRST[j % FIRST.length]} ${LAST[Math.floor(j / FIRST.length) % LAST.length]}`;
  return `${person(2 * i)} lives in ${PLACES[i % PLACES.length]}. ${person(2 * i + 1)} met ${person(2 * i)} in ${PLACES[(i * 3 + 1) % PLACES.length]}.`;
};

describe(`planner statistics of a graph small against its tables (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let database: Database;
  let keeper: TableStatisticsKeeper;
  let largeScope: { tenantId: string; graphId: number };

  /** The entities table's row count as its last analyze saw it (pg_class: current at commit, unlike the statistics views). */
  const analyzedRows = async (): Promise<number> => {
    const [row] = await queryRows<{ n: number }>(database.db, sql`SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'entities'::regclass`);
    return Number(row.n);
  };

  /** The planner's estimate of a tenant's entities (literals, as a custom plan sees them) beside their count. */
  const entityRows = async (tenantId: string): Promise<{ estimated: number; counted: number }> => {
    const [plan] = await queryRows<Record<string, unknown>>(
      database.db,
      sql.raw(`EXPLAIN (FORMAT JSON) SELECT 1 FROM entities WHERE tenant_id = '${tenantId}'::uuid`),
    );
    const json = Object.values(plan)[0];
    const [explained] = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: { 'Plan Rows': number } }>;
    const [{ n }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM entities WHERE tenant_id = ${tenantId}`);
    return { estimated: Number(explained.Plan['Plan Rows']), counted: Number(n) };
  };

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_WORKER_CONCURRENCY: '2' });
    database = t.app.get<Database>(DATABASE);
    keeper = t.app.get(TableStatisticsKeeper);
    // A large tenant written straight to the table and analyzed: the store the small one joins.
    const large = await createTenant(t.app);
    const largeGraph = await t.app.get(GraphsRepository).defaultGraph(large.id);
    await database.db.execute(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name)
      SELECT ${large.id}, ${largeGraph.id}, 'Entity ' || i, 'entity ' || i FROM generate_series(1, ${LARGE_TENANT_ENTITIES}) AS i`);
    await database.db.execute(sql`ANALYZE entities`);
    largeScope = { tenantId: large.id, graphId: largeGraph.id };
  }, 120_000);
  afterAll(() => t?.close());

  it("analyzes for a small tenant's graph once its estimate is off, though its tables never pass the table-wide threshold", async () => {
    const small = await createTenant(t.app);
    const documents = t.app.get(DocumentsService);
    for (let i = 0; i < SMALL_TENANT_DOCUMENTS; i++) {
      await documents.submit(small.id, { name: `note-${i}.txt`, text: documentText(i), mimeType: 'text/plain' });
    }
    await t.app.get(IngestWorker).drain();
    await keeper.settled();

    const { estimated, counted } = await entityRows(small.id);
    // Far below the table-wide threshold (50 + 10% of 20 000 rows), so only the graph's check could have analyzed.
    if (process.env.LOCI_PRINT_PLANS) console.log(`small tenant: ${counted} entities, estimated ${estimated}`);
    expect(counted).toBeGreaterThanOrEqual(100);
    expect(counted).toBeLessThan(1_000);
    // Within the keeper's factor of two of the truth; without the graph's check it stays at a row or two.
    expect(estimated).toBeGreaterThanOrEqual(counted / 2);
    expect(estimated).toBeLessThanOrEqual(counted * 2);
  }, 300_000);

  it('does not analyze for a graph the planner already estimates right', async () => {
    // The large graph grows by 5% without an analyze: still within the keeper's factor of two.
    await database.db.execute(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name)
      SELECT ${largeScope.tenantId}, ${largeScope.graphId}, 'Later ' || i, 'later ' || i FROM generate_series(1, 1000) AS i`);
    const before = await analyzedRows();
    // Pieces noted for it: its checks fall due and find it estimated right.
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 60; i++) keeper.noteWrites(largeScope);
      await keeper.settled();
    }
    expect(await analyzedRows()).toBe(before);
  });
});
