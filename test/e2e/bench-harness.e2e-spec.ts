import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { generateDocuments, planTenants } from '../../bench/generator';
import { describeMachine, describeRun, writeReport } from '../../bench/report';
import { EXPLAIN_STATEMENTS, runExplainBench } from '../../bench/scenarios/explain';
import { checkGb, gbDoubleAnswer, gbStepTimings, runGbCell } from '../../bench/scenarios/gb-query';
import { runIngestBench } from '../../bench/scenarios/ingest';
import { LimitsStoreKind, runLimitsBench } from '../../bench/scenarios/limits';
import { DOUBLE_MODEL, ModelDouble, startModelDouble } from '../../bench/scenarios/model-double';
import { runQueryBench } from '../../bench/scenarios/query';
import { seedBench, SeedResult } from '../../bench/seeder';
import { chartPoints, renderChart } from '../../bench/chart';

/**
 * CI smoke of the benchmark harness (issue 8), so that it does not rot: a tiny seed, each
 * scenario for about a second, a results file. Never asserts on times: only on shape and
 * finiteness. PostgreSQL parts are skipped without DATABASE_URL, Redis parts without REDIS_URL.
 */
const finite = (values: unknown[]) => values.forEach((value) => expect(Number.isFinite(value)).toBe(true));
describe('bench generator (no store)', () => {
  const now = new Date('2025-06-01T00:00:00Z');
  const texts = (seed: number) => [...generateDocuments(planTenants(1, 400)[0], seed, now)].map((d) => d.text);

  it('writes the same documents for the same seed, and others for another seed', () => {
    expect(texts(7)).toEqual(texts(7));
    expect(texts(8)).not.toEqual(texts(7));
  });

  it('states the planned number of distinct facts with a skewed degree distribution', () => {
    const documents = [...generateDocuments(planTenants(1, 2000)[0], 3, now)];
    const facts = documents.flatMap((d) => d.chunks.flatMap((c) => c.facts));
    expect(facts).toHaveLength(2000);
    expect(new Set(facts.map((f) => `${f.source.name}|${f.template.relation}|${f.target.name}`)).size).toBe(2000);
    const degree = new Map<string, number>();
    for (const f of facts) for (const name of [f.source.name, f.target.name]) degree.set(name, (degree.get(name) ?? 0) + 1);
    const sorted = [...degree.values()].sort((a, b) => a - b);
    expect(sorted[sorted.length - 1]).toBeGreaterThan(10 * sorted[Math.floor(sorted.length / 2)]);
    // every chunk states its facts, and introduces each entity once across the tenant
    for (const chunk of documents.flatMap((d) => d.chunks)) for (const f of chunk.facts) expect(chunk.text).toContain(f.description);
    const introduced = documents.flatMap((d) => d.chunks.flatMap((c) => c.introduces.map((e) => e.normalizedName)));
    expect(new Set(introduced).size).toBe(introduced.length);
  });

  it('puts most edges in one tenant', () => {
    const plans = planTenants(5, 1000);
    expect(plans.map((p) => p.edges)).toEqual([800, 50, 50, 50, 50]);
  });

  it('gives a gb dataset its own stream of text', () => {
    const gb = [...generateDocuments({ index: 0, large: false, edges: 400, stream: 'gb:bench-user' }, 7, now)].map((d) => d.text);
    expect(gb).not.toEqual(texts(7));
  });

  it('charts query-context results by graph size, and says so when there are none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loci-bench-chart-'));
    try {
      expect(renderChart(chartPoints(dir, 'mix', [1, 16]), 'mix')).toContain('No query-context results');
      const cell = (concurrency: number, p50: number) => ({ scenario: 'query-context', mode: 'mix', concurrency, throughput_rps: 1, latency_ms: { p50, p99: p50 * 3 } });
      for (const [edges, p50] of [[10_000, 4], [100_000, 6]]) {
        const report = { scenario: 'query-context', created_at: new Date().toISOString(), dataset: { edges, large_tenant: { edges: edges * 0.8 } }, cells: [cell(1, p50), cell(16, p50 * 5)] };
        writeFileSync(join(dir, `query-context-${edges}-x.json`), JSON.stringify(report));
      }
      const points = chartPoints(dir, 'mix', [1, 16]);
      expect(points.map((p) => [p.edges, p.concurrency, p.p50])).toEqual([[10_000, 1, 4], [100_000, 1, 6], [10_000, 16, 20], [100_000, 16, 30]]);
      const svg = renderChart(points, 'mix');
      expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      expect(svg).toContain('1M (not run)');
      expect(svg.match(/<path /g)).toHaveLength(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('bench limits without a database (LimitStore calls; Redis only with REDIS_URL)', () => {
  it('measures microseconds and counts Redis round trips per limited request', async () => {
    const stores: LimitsStoreKind[] = process.env.REDIS_URL ? ['memory', 'redis'] : ['memory'];
    if (!process.env.REDIS_URL) console.warn('bench limits smoke: REDIS_URL is not set, the Redis store is skipped.');
    const outcome = await runLimitsBench({ layers: ['store', 'spend-control'], stores, concurrencies: [1, 4], durationS: 1, redisUrl: process.env.REDIS_URL, warmup: 5 });
    expect(outcome.skipped.map((s) => s.layer)).toEqual(stores.map(() => 'spend-control')); // no DATABASE_URL given
    expect(outcome.cells.map((c) => [c.layer, c.store, c.concurrency])).toEqual(stores.flatMap((s) => [['store', s, 1], ['store', s, 4]]));
    for (const cell of outcome.cells) {
      expect(cell.errors).toBe(0);
      expect(cell.requests).toBeGreaterThan(0);
      finite([cell.throughput_rps, ...Object.values(cell.latency_us)]);
      if (cell.store === 'memory') expect(cell.redis_round_trips).toBeNull();
      else finite([cell.redis_round_trips!.per_request, ...Object.values(cell.redis_round_trips!.by_command)]);
    }
    const machine = await describeMachine();
    expect(machine.postgres).toBeNull();
    expect(Number.isFinite(machine.cpus)).toBe(true);
  }, 60_000);
});

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.warn('bench harness smoke skipped: DATABASE_URL is not set (the harness writes and reads PostgreSQL with pgvector).');
}

(databaseUrl ? describe : describe.skip)('bench harness on PostgreSQL (seed, query-floor, query-context, gb-query, explain, limits, ingest)', () => {
  let t: TestApp;
  let seeded: SeedResult;
  let url: string;
  let model: ModelDouble;
  let lastContext = '';
  const resultsDir = mkdtempSync(join(tmpdir(), 'loci-bench-results-'));

  beforeAll(async () => {
    // The gb query stage goes to the LLM double (as in npm run bench -- gb-query); the rest is local.
    model = await startModelDouble(resultsDir, (userText) => {
      lastContext = userText;
      return gbDoubleAnswer(userText);
    });
    t = await startTestApp({ OPENAI_API_KEY: undefined, ...model.env, LOCI_QUERY_MODEL: DOUBLE_MODEL, LOCI_RUN_WORKER: 'false' });
    url = t.settings.database.url!;
    seeded = await seedBench({ databaseUrl: url, tenants: 3, edges: 300, seed: 7, questions: 20, gbEdges: 100 });
    await t.app.listen(0, '127.0.0.1');
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await model?.close();
    rmSync(resultsDir, { recursive: true, force: true });
  });

  const apiUrl = () => `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;

  it('leaves what ingestion leaves: processed documents, vectors, provenance, a working API key', async () => {
    const { large_tenant: large, questions } = seeded.file;
    expect(large.edges).toBe(240);
    expect(questions).toHaveLength(20);
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const one = async (sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows[0];
      expect(await one(`SELECT count(*)::int AS n FROM edges`)).toEqual({ n: 400 });
      expect(await one(`SELECT count(*)::int AS n FROM edges WHERE graph_id = $1`, [seeded.file.gb!.graph_id])).toEqual({ n: 100 });
      expect(await one(`SELECT kind, gb_user_id, name FROM graphs WHERE id = $1`, [seeded.file.gb!.graph_id])).toEqual({ kind: 'gb', gb_user_id: 'bench-user', name: 'main' });
      expect(await one(`SELECT count(*)::int AS n FROM documents WHERE graph_id = $1 AND kind <> 'gb_text'`, [seeded.file.gb!.graph_id])).toEqual({ n: 0 });
      expect(await one(`SELECT count(*)::int AS n FROM documents WHERE status <> 'processed'`)).toEqual({ n: 0 });
      expect(await one(`SELECT count(*)::int AS n FROM entities WHERE embedding IS NULL OR name_embedding IS NULL`)).toEqual({ n: 0 });
      expect(await one(`SELECT count(*)::int AS n FROM chunks WHERE embedding IS NULL OR summary_embedding IS NULL OR summary IS NULL`)).toEqual({ n: 0 });
      // The default width: nothing in the 256-wide twins, the offline embedder's 1024 name.
      expect(await one(`SELECT count(*)::int AS n FROM edges WHERE embedding_256 IS NOT NULL OR embedding_model <> 'local:local-hash-v1'`)).toEqual({ n: 0 });
      expect(await one(`SELECT count(*)::int AS n FROM edges x WHERE NOT EXISTS (SELECT 1 FROM edge_documents d WHERE d.tenant_id = x.tenant_id AND d.edge_id = x.id)`)).toEqual({ n: 0 });
      expect(await one(`SELECT count(*)::int AS n FROM entities e WHERE NOT EXISTS (SELECT 1 FROM entity_chunks c WHERE c.tenant_id = e.tenant_id AND c.entity_id = e.id)`)).toEqual({ n: 0 });
      const answers = questions.map((q) => q.answer.edge_id);
      expect(await one(`SELECT count(*)::int AS n FROM edges WHERE tenant_id = $1 AND id = ANY($2) AND expired_at IS NULL`, [large.tenant_id, answers])).toEqual({ n: 20 });
    } finally {
      await client.end();
    }
    await t.http.post('/v1/query').set('Authorization', `Bearer ${large.api_key}`).send({ query: questions[0].query }).expect(200);
  });

  it('runs both query scenarios for a moment and writes a report with the expected fields', async () => {
    const outcome = await runQueryBench({
      scenarios: ['query-floor', 'query-context'],
      file: seeded.file,
      databaseUrl: url,
      poolMax: 4,
      modes: ['mix'],
      concurrencies: [2],
      durationS: 1,
      checkCount: 3,
      target: { url: apiUrl(), apiKey: seeded.file.large_tenant.api_key, pid: process.pid },
    });
    const { machine, dataset } = await describeRun(url, seeded.file, 'in-memory');
    const path = writeReport(resultsDir, {
      scenario: 'query',
      created_at: new Date().toISOString(),
      dataset,
      machine: { ...machine, load_average_after: machine.load_average },
      settings: { duration_s: 1 },
      ...outcome,
    });
    expect(path).toMatch(/query-300-.*\.json$/);
    const report = JSON.parse(readFileSync(path, 'utf8'));

    expect(report.machine).toEqual(expect.objectContaining({ cpus: expect.any(Number), node: process.version, pgvector: expect.any(String) }));
    expect(report.machine.pg_settings).toHaveProperty(['hnsw.ef_search']);
    expect(report.dataset.large_tenant).toEqual(expect.objectContaining({ edges: 240, live_edges: expect.any(Number) }));
    expect(report.checks.map((c: { scenario: string; ok: number }) => [c.scenario, c.ok])).toEqual([
      ['query-floor', 3],
      ['query-context', 3],
    ]);
    expect(report.cells.map((c: { scenario: string }) => c.scenario)).toEqual(['query-floor', 'query-context']);
    for (const cell of report.cells) {
      expect(cell).toEqual(expect.objectContaining({ mode: 'mix', concurrency: 2, errors: 0 }));
      expect(cell.requests).toBeGreaterThan(0);
      finite([cell.throughput_rps, cell.duration_s, ...Object.values(cell.latency_ms)]);
    }
    expect(report.ratios).toHaveLength(1);
    for (const value of Object.values(report.ratios[0]).filter((v) => typeof v === 'number')) expect(Number.isFinite(value)).toBe(true);
    expect(Number.isFinite(report.api_rss.peak_mb)).toBe(true);
  });

  it('runs gb-query with the model stage on the double, with per-step timings from the request log', async () => {
    const gb = seeded.file.gb!;
    const target = { url: apiUrl(), apiKey: seeded.file.large_tenant.api_key, userId: gb.user_id, dataset: gb.dataset };
    const check = await checkGb(target, gb.questions, 3, () => lastContext);
    expect(check).toEqual(expect.objectContaining({ scenario: 'gb-query', requests: 3, ok: 3 }));
    finite([check.answer_in_context, check.no_information, check.mean_bytes]);
    const from = new Date();
    const cell = await runGbCell(target, gb.questions, 2, 1);
    const steps = await gbStepTimings(url, seeded.file.large_tenant.tenant_id, from, new Date());
    expect(cell).toEqual(expect.objectContaining({ scenario: 'gb-query', concurrency: 2, errors: 0 }));
    expect(cell.requests).toBeGreaterThan(0);
    finite([cell.throughput_rps, ...Object.values(cell.latency_ms)]);
    expect(steps.map((s) => s.name)).toEqual(expect.arrayContaining(['keyword_seeds', 'search_vectors', 'expand', 'passages']));
    for (const step of steps) finite([step.requests, step.p50_ms, step.p95_ms, step.p99_ms]);
    expect(model.answered()).toBeGreaterThan(0);
  });

  it('explains the floor statements of mix questions and writes a report with the expected fields', async () => {
    const outcome = await runExplainBench({ file: seeded.file, databaseUrl: url, count: 3 });
    const { machine, dataset } = await describeRun(url, seeded.file, 'in-memory');
    const path = writeReport(resultsDir, { scenario: 'explain', created_at: new Date().toISOString(), dataset, machine: { ...machine, load_average_after: machine.load_average }, settings: {}, ...outcome });
    expect(path).toMatch(/explain-300-.*\.json$/);
    const report = JSON.parse(readFileSync(path, 'utf8'));

    expect(report.questions).toBe(3);
    expect(report.statements.map((s: { name: string }) => s.name)).toEqual([...EXPLAIN_STATEMENTS]);
    for (const s of report.statements) {
      expect(s.plans).toBeGreaterThan(0);
      finite([s.planning_ms_p50, s.shared_hit_blocks_p50, s.shared_read_blocks_p50, ...Object.values(s.execution_ms)]);
      expect(typeof s.hnsw_index_scan).toBe('boolean');
      expect(typeof s.vector_search).toBe('boolean');
    }
    finite([report.total_p50_ms]);
  });

  it('runs limits through SpendControl (tenant and platform limits read from PostgreSQL)', async () => {
    const stores: LimitsStoreKind[] = process.env.REDIS_URL ? ['memory', 'redis'] : ['memory'];
    const outcome = await runLimitsBench({ layers: ['spend-control'], stores, concurrencies: [1], durationS: 1, redisUrl: process.env.REDIS_URL, databaseUrl: url, warmup: 3 });
    expect(outcome.skipped).toEqual([]);
    expect(outcome.cells).toHaveLength(stores.length);
    for (const cell of outcome.cells) {
      expect(cell).toEqual(expect.objectContaining({ layer: 'spend-control', errors: 0 }));
      finite([cell.requests, cell.throughput_rps, cell.postgres_statements_per_request, ...Object.values(cell.latency_us)]);
      if (cell.store === 'redis') finite([cell.redis_round_trips!.per_request, cell.redis_round_trips!.min, cell.redis_round_trips!.max]);
    }
    // the bench tenant is removed after the run
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(`SELECT count(*)::int AS n FROM tenants WHERE name LIKE 'bench-limits-%'`)).rows[0]).toEqual({ n: 0 });
    } finally {
      await client.end();
    }
  });

  it('runs ingest through DocumentsService and IngestWorker, local and with the double, and writes a report', async () => {
    const outcome = await runIngestBench({
      databaseUrl: url,
      redisUrl: process.env.REDIS_URL,
      providers: ['local', 'double'],
      workerConcurrencies: [1],
      modelDelayMs: 10,
      documents: 2,
      documentChunks: 1,
      seed: 5,
    });
    expect(outcome.cells.map((c) => c.provider)).toEqual(['local', 'double']);
    for (const cell of outcome.cells) {
      expect(cell).toEqual(expect.objectContaining({ scenario: 'ingest', documents: 2, failed_documents: 0, worker_concurrency: 1 }));
      expect(cell.chunks).toBeGreaterThanOrEqual(2);
      expect(cell.graph.edges).toBeGreaterThan(0);
      finite([cell.chunks_per_s, cell.documents_per_s, cell.elapsed_s, cell.sql_statements_per_chunk, cell.job_retries, ...Object.values(cell.document_latency_ms)]);
    }
    expect(outcome.cells[1].model_calls).toBeGreaterThanOrEqual(4); // summarize + extract per chunk
    const machine = await describeMachine(url);
    const path = writeReport(resultsDir, { scenario: 'ingest', label: '2docs', created_at: new Date().toISOString(), machine: { ...machine, load_average_after: machine.load_average }, settings: {}, ...outcome });
    expect(path).toMatch(/ingest-2docs-.*\.json$/);
    expect(JSON.parse(readFileSync(path, 'utf8')).cells).toHaveLength(2);
  }, 120_000);

  // Last: it adds tenants and drops and rebuilds the HNSW indexes, which the cases above must not see.
  it('seeds at 256 into the 256-wide columns, and --defer-indexes rebuilds every HNSW index of both widths', async () => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const hnsw = async () => (await client.query(`SELECT indexname FROM pg_indexes WHERE indexdef ILIKE '%USING hnsw%' ORDER BY indexname`)).rows.map((r) => r.indexname);
      const before = await hnsw();
      expect(before).toEqual(expect.arrayContaining(['edges_embedding_256_hnsw', 'entities_name_embedding_256_hnsw', 'chunks_summary_embedding_256_hnsw']));
      const narrow = await seedBench({ databaseUrl: url, tenants: 1, edges: 60, seed: 3, questions: 5, gbEdges: 0, vectorWidth: 256, deferIndexes: true, indexMemoryMb: 64 });
      expect(await hnsw()).toEqual(before);
      const tenant = narrow.file.large_tenant.tenant_id;
      const count = async (sql: string) => (await client.query(sql, [tenant])).rows[0].n;
      // Every vector at 256 in its `_256` column, every 1024 column null, the model named for the width.
      expect(await count(`SELECT count(*)::int AS n FROM edges WHERE tenant_id = $1`)).toBe(60);
      expect(await count(`SELECT count(*)::int AS n FROM edges WHERE tenant_id = $1 AND (embedding IS NOT NULL OR vector_dims(embedding_256) IS DISTINCT FROM 256 OR embedding_model <> 'local:local-hash-v1-256d')`)).toBe(0);
      expect(await count(`SELECT count(*)::int AS n FROM entities WHERE tenant_id = $1 AND (embedding IS NOT NULL OR name_embedding IS NOT NULL OR embedding_256 IS NULL OR name_embedding_256 IS NULL OR embedding_model <> 'local:local-hash-v1-256d')`)).toBe(0);
      expect(await count(`SELECT count(*)::int AS n FROM chunks WHERE tenant_id = $1 AND (embedding IS NOT NULL OR summary_embedding IS NOT NULL OR embedding_256 IS NULL OR summary_embedding_256 IS NULL OR embedding_model <> 'local:local-hash-v1-256d')`)).toBe(0);
      // The rebuilt 256 index answers: an edge's own vector finds an edge at distance 0 through it.
      const v = (await client.query(`SELECT embedding_256::text AS v FROM edges WHERE tenant_id = $1 ORDER BY id LIMIT 1`, [tenant])).rows[0].v;
      const nearest = `SELECT embedding_256 <=> $1::halfvec AS d FROM edges ORDER BY embedding_256 <=> $1::halfvec LIMIT 1`;
      await client.query('SET enable_seqscan = off');
      expect(JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${nearest}`, [v])).rows)).toContain('edges_embedding_256_hnsw');
      expect((await client.query(nearest, [v])).rows[0].d).toBeLessThan(1e-3);
    } finally {
      await client.end();
    }
  });
});
