import { Client } from 'pg';
import { GraphsRepository, TableStatisticsKeeper } from '@loci/db';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { EXPLAIN_STATEMENTS } from '../../bench/scenarios/explain';
import { GRAPH_SCAN_TABLES, graphStatistics } from '../../bench/scenarios/graph-statistics';
import { benchDocuments } from '../../bench/scenarios/ingest';
import { runIngestedBench } from '../../bench/scenarios/query-ingested';

/**
 * CI smoke of `npm run bench -- query-ingested` (issue 16.0), in the style of
 * bench-harness.e2e-spec.ts: two generated documents uploaded through POST /v1/documents to an
 * app whose in-process worker ingests them, the statistics snapshots, the explained plans and
 * one short query cell of each kind, then all of it again after ANALYZE by hand (--then-analyze). Never asserts on times, only on shape, finiteness, and
 * that the snapshot reads the planner's estimate (not the count) and the analyze history.
 * The bench speaks PostgreSQL (pg, pg_stat_user_tables): skipped without DATABASE_URL.
 */
const finite = (values: unknown[]) => values.forEach((value) => expect(Number.isFinite(value)).toBe(true));
const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) console.warn('bench query-ingested smoke skipped: DATABASE_URL is not set (the bench reads PostgreSQL with pg).');

(databaseUrl ? describe : describe.skip)('bench query-ingested on PostgreSQL', () => {
  let t: TestApp;
  let url: string;
  let db: Client;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'true', LOCI_WORKER_CONCURRENCY: '2' });
    url = t.settings.database.url!;
    await t.app.listen(0, '127.0.0.1');
    db = new Client({ connectionString: url });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  const apiUrl = () => `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
  const one = async (text: string, params: unknown[] = []) => (await db.query(text, params)).rows[0];

  it('uploads a corpus through the API, records the graph statistics, explains and runs the query cells, then deletes its tenant', async () => {
    const { chunkTokens, chunkOverlapTokens } = t.settings.ingest;
    const documents = benchDocuments({ documents: 2, documentChunks: 1, seed: 5 }, chunkTokens - chunkOverlapTokens);
    const lines: string[] = [];
    const outcome = await runIngestedBench({
      databaseUrl: url,
      target: { url: apiUrl(), pid: process.pid },
      documents,
      seed: 5,
      modes: ['mix'],
      concurrencies: [1],
      durationS: 2,
      checkCount: 2,
      poolMax: 4,
      thenAnalyze: true,
      log: (line) => lines.push(line),
    });

    const { ingestion } = outcome;
    expect(ingestion).toEqual(expect.objectContaining({ documents: 2, failed_documents: 0 }));
    expect(ingestion.chunks).toBeGreaterThanOrEqual(2);
    expect(ingestion.graph.edges).toBeGreaterThan(0);
    expect(ingestion.graph.chunks).toBe(ingestion.chunks);
    finite([ingestion.elapsed_s, ingestion.chunks_per_s, ...Object.values(ingestion.upload_latency_ms)]);

    expect(outcome.statistics.map((s) => s.label)).toEqual(['ingested', 'after the query cells']);
    for (const snapshot of outcome.statistics) {
      expect(typeof snapshot.autovacuum).toBe('string');
      expect(snapshot.tables.map((s) => s.table)).toEqual([...GRAPH_SCAN_TABLES]);
      for (const table of snapshot.tables) {
        expect(table.graph_rows).toBeGreaterThan(0);
        finite([table.graph_rows_estimated, table.estimate_ratio, table.table_reltuples, table.table_live_rows, table.n_mod_since_analyze, table.analyze_count]);
        expect(typeof table.analyzed_since_start).toBe('boolean');
      }
    }
    const counted = Object.fromEntries(outcome.statistics[0].tables.map((s) => [s.table, s.graph_rows]));
    expect(counted).toEqual(expect.objectContaining({ chunks: ingestion.graph.chunks, entities: ingestion.graph.entities, edges: ingestion.graph.edges, documents: 2 }));

    expect(outcome.explain!.statements.map((s) => s.name)).toEqual([...EXPLAIN_STATEMENTS]);
    expect(outcome.questions).toBeGreaterThan(0);
    expect(outcome.query.checks.map((c) => [c.scenario, c.ok])).toEqual([
      ['query-floor', 2],
      ['query-context', 2],
    ]);
    expect(outcome.query.cells.map((c) => [c.scenario, c.mode, c.concurrency, c.errors])).toEqual([
      ['query-floor', 'mix', 1, 0],
      ['query-context', 'mix', 1, 0],
    ]);
    for (const cell of outcome.query.cells) expect(cell.requests).toBeGreaterThan(0);
    expect(outcome.query.ratios).toHaveLength(1);
    expect(lines.some((line) => line.startsWith('ingested 2 documents'))).toBe(true);

    // --then-analyze: the graph tables analyzed by hand, then the plans and the cells again.
    const analyzed = outcome.analyzed!;
    expect(analyzed.statistics.label).toBe('after ANALYZE by hand');
    for (const table of analyzed.statistics.tables) {
      expect(table.analyzed_since_start).toBe(true);
      expect(table.n_mod_since_analyze).toBe(0);
      expect(table.estimate_ratio!).toBeGreaterThan(0.5);
      expect(table.estimate_ratio!).toBeLessThan(2);
    }
    expect(analyzed.explain!.statements.map((s) => s.name)).toEqual([...EXPLAIN_STATEMENTS]);
    expect(analyzed.query.cells.map((c) => [c.scenario, c.errors])).toEqual([
      ['query-floor', 0],
      ['query-context', 0],
    ]);

    expect(await one(`SELECT count(*)::int AS n FROM tenants WHERE name LIKE 'bench-ingested-%'`)).toEqual({ n: 0 });
  }, 180_000);

  it("reads the planner's estimate of a graph beside its counted rows, and whether an analyze ran since the start", async () => {
    await t.app.get(TableStatisticsKeeper).settled();
    const tenant = await createTenant(t.app);
    const graphId = (await t.app.get(GraphsRepository).defaultGraph(tenant.id)).id;
    await db.query(
      `INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text, status)
       SELECT $1, $2, 'document', 'd ' || g.i, md5(g.i::text), 'text', 'processed' FROM generate_series(1, 1500) AS g(i)`,
      [tenant.id, graphId],
    );
    const scope = { tenantId: tenant.id, graphId };
    const documentsOf = async (label: string, since: Date) => (await graphStatistics(url, scope, since, label)).tables.find((s) => s.table === 'documents')!;

    // Written, not analyzed: the count has the rows, the planner does not know the graph.
    const since = new Date();
    const before = await documentsOf('written', since);
    expect(before.graph_rows).toBe(1500);
    expect(before.graph_rows_estimated).toBeLessThan(150);
    expect(before.analyzed_since_start).toBe(false);

    await db.query('ANALYZE documents');
    const after = await documentsOf('analyzed', since);
    expect(after.graph_rows).toBe(1500);
    expect(after.graph_rows_estimated).toBeGreaterThan(1000);
    expect(after.graph_rows_estimated).toBeLessThan(2000);
    expect(after.estimate_ratio).toBeCloseTo(after.graph_rows_estimated / 1500, 2);
    expect(after.analyzed_since_start).toBe(true);
    expect(after.analyze_count).toBeGreaterThan(before.analyze_count);
    expect(after.last_analyze).not.toBeNull();
  }, 60_000);
});
