import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Database, findMigrationsFolder, graphs, openDatabase, queryRows, tenants } from '@loci/db';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * The planner's row estimate for one graph of one tenant (migration 0016): a graph belongs to
 * one tenant, so `tenant_id = … AND graph_id = …` selects the graph's rows, not the product of
 * the two columns' shares. With the product, a large graph among many tenants looks a fraction
 * of its size, and a vector search is planned as an exact sort of the graph's rows instead of
 * an HNSW scan. Read with EXPLAIN on both stores; nothing is timed.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const SMALL_TENANTS = 20;
const SMALL_ROWS = 200;
const LARGE_ROWS = 2000;

describe(`planner estimates per graph (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  async function graphWithDocuments(rows: number): Promise<{ tenantId: string; graphId: number }> {
    const [tenant] = await database.db.insert(tenants).values({ name: `estimates ${randomUUID()}` }).returning();
    const [graph] = await database.db.insert(graphs).values({ tenantId: tenant.id, kind: 'default', name: 'default' }).returning();
    await database.db.execute(sql`INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text, status)
      SELECT ${tenant.id}, ${graph.id}, 'document', 'd ' || g.i, md5(g.i::text || ${graph.id}::text), 'text', 'processed'
      FROM generate_series(1, ${rows}) AS g(i)`);
    return { tenantId: tenant.id, graphId: graph.id };
  }

  it('declares the tenant-graph dependency on every table searched by graph', async () => {
    const declared = await queryRows<{ table: string }>(
      database.db,
      sql`SELECT c.relname AS table FROM pg_statistic_ext s JOIN pg_class c ON c.oid = s.stxrelid
          WHERE 'f' = ANY(s.stxkind) ORDER BY 1`,
    );
    expect(declared.map((row) => row.table)).toEqual(expect.arrayContaining(['chunk_terms', 'chunks', 'documents', 'edges', 'entities']));
  });

  it("estimates a large graph's rows among many tenants at its size, not the product of the shares", async () => {
    for (let i = 0; i < SMALL_TENANTS; i++) await graphWithDocuments(SMALL_ROWS);
    const large = await graphWithDocuments(LARGE_ROWS);
    await database.db.execute(sql`ANALYZE documents`);
    const [row] = await queryRows<Record<string, unknown>>(
      database.db,
      sql`EXPLAIN (FORMAT JSON) SELECT 1 FROM documents WHERE tenant_id = ${large.tenantId} AND graph_id = ${large.graphId}`,
    );
    const plan = Object.values(row)[0];
    const estimated = Number((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan['Plan Rows']);
    // The product of the shares: 6 000 rows, a third of them the large graph's → ~670 rows.
    expect(estimated).toBeGreaterThan(0.6 * LARGE_ROWS);
    expect(estimated).toBeLessThan(1.5 * LARGE_ROWS);
  });
});
