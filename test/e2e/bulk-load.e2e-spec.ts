import { sql } from 'drizzle-orm';
import { BulkLoadRepository, Database, DATABASE, GraphsRepository, ownIndexesOf, queryRows } from '@loci/db';
import { BulkLoadService, GraphReembedder, IngestWorker, Job } from '@loci/ingest';
import { chunkSearchSql, RetrievalService } from '@loci/retrieval';
import { createApiKey, createTenantWithPeople, recordStatements } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { TenantLifecycleService } from '../../apps/api/src/admin/tenant-lifecycle.service';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';

/**
 * Bulk mode (issue 16.3; docs/decisions/0029-bulk-mode.md, "Bulk mode: a graph's own HNSW tier"): a tenant
 * graph whose load begins keeps its searched vectors in its own columns, which no shared HNSW
 * index covers; its questions find them all the while; when the load ends the worker builds the
 * graph's own HNSW indexes, and searches plan on them. Other tenants' graphs are untouched.
 * On PostgreSQL; the embedded store refuses bulk mode (its build would hold the API's thread):
 * test/contract/bulk-mode.contract-spec.ts, which runs on both stores.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const MODEL = 'local:local-hash-v1';
const embedder = new LocalHashingEmbedder(1024);

const DOCS = {
  before: { name: 'harbour.txt', text: 'Marisol Okafor runs the Quayside Lantern ferry company in Port Velloran.' },
  during: { name: 'orchard.txt', text: 'Teodor Halloway grows quince trees at the Brambleford orchard near Lake Sorrow.' },
  after: { name: 'foundry.txt', text: 'Ingrid Vasquez casts bronze bells at the Copperwick foundry in Duskmoor.' },
  other: { name: 'observatory.txt', text: 'Pim Achterberg keeps the Windmere observatory telescope in Kestrel Bay.' },
};

/** Where a tenant's searched vectors are: counts of rows with vectors in the shared and the own columns. */
async function placement(db: Database['db'], tenantId: string) {
  const [row] = await queryRows<Record<string, number>>(
    db,
    sql`SELECT
      (SELECT count(*) FROM chunks WHERE tenant_id = ${tenantId})::int AS chunks,
      (SELECT count(*) FROM chunks WHERE tenant_id = ${tenantId} AND num_nonnulls(embedding, embedding_256, summary_embedding, summary_embedding_256) > 0)::int AS chunks_shared,
      (SELECT count(*) FROM chunks WHERE tenant_id = ${tenantId} AND own_embedding IS NOT NULL)::int AS chunks_own,
      (SELECT count(*) FROM entities WHERE tenant_id = ${tenantId})::int AS entities,
      (SELECT count(*) FROM entities WHERE tenant_id = ${tenantId} AND num_nonnulls(embedding, embedding_256) > 0)::int AS entities_shared,
      (SELECT count(*) FROM entities WHERE tenant_id = ${tenantId} AND own_embedding IS NOT NULL)::int AS entities_own,
      (SELECT count(*) FROM entities WHERE tenant_id = ${tenantId} AND name_embedding IS NOT NULL)::int AS entity_names,
      (SELECT count(*) FROM edges WHERE tenant_id = ${tenantId})::int AS edges,
      (SELECT count(*) FROM edges WHERE tenant_id = ${tenantId} AND num_nonnulls(embedding, embedding_256) > 0)::int AS edges_shared,
      (SELECT count(*) FROM edges WHERE tenant_id = ${tenantId} AND own_embedding IS NOT NULL)::int AS edges_own`,
  );
  return row;
}

(onPostgres ? describe : describe.skip)('bulk mode (PostgreSQL)', () => {
  let t: TestApp;
  let db: Database['db'];
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let graphA: number;

  const upload = async (key: string, doc: { name: string; text: string }) => {
    await t.http.post('/v1/documents').set('X-API-Key', key).send(doc).expect(202);
    await t.app.get(IngestWorker).drain();
  };
  /** The chunk texts a tenant's graph gives for `question` by its vector alone (no BM25), in the graph's tier. */
  const foundByVector = async (tenantId: string, question: string) => {
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenantId);
    const found = await t.app.get(RetrievalService).retrieve({
      tenantId,
      graphId: graph.id,
      vectorTier: await t.app.get(GraphsRepository).vectorTier(tenantId, graph.id),
      mode: 'naive',
      questionVector: embedder.embedText(question),
      embeddingModel: MODEL,
    });
    return found.chunks.map((c) => c.text);
  };
  const bulkLoad = (key: string) => t.http.get('/v1/bulk-load').set('X-API-Key', key).expect(200);

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_BULK_LOAD_GRAPHS_MAX: '1' });
    db = t.app.get<Database>(DATABASE).db;
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    graphA = (await t.app.get(GraphsRepository).defaultGraph(a.tenant.id)).id;
    await upload(a.apiKey.key, DOCS.before);
    await upload(b.apiKey.key, DOCS.other);
  });
  afterAll(() => t.close());

  it('a graph that begins a bulk load moves its searched vectors to its own columns, names staying shared, and its questions still find them', async () => {
    expect((await bulkLoad(a.apiKey.key)).body).toEqual({ state: 'none', started_at: null });
    const began = await t.http.post('/v1/bulk-load').set('X-API-Key', a.apiKey.key).expect(200);
    expect(began.body).toEqual({ state: 'loading', started_at: expect.any(String) });
    // Again while loading: the same load, not a new one.
    expect((await t.http.post('/v1/bulk-load').set('X-API-Key', a.apiKey.key).expect(200)).body).toEqual(began.body);

    const moved = await placement(db, a.tenant.id);
    expect(moved.chunks).toBeGreaterThan(0);
    expect(moved.entities).toBeGreaterThan(0);
    expect(moved.edges).toBeGreaterThan(0);
    expect(moved).toMatchObject({
      chunks_shared: 0, chunks_own: moved.chunks,
      entities_shared: 0, entities_own: moved.entities, entity_names: moved.entities,
      edges_shared: 0, edges_own: moved.edges,
    });
    expect(await foundByVector(a.tenant.id, 'Who runs the Quayside Lantern ferry company?')).toContain(DOCS.before.text);
  });

  it('writes what is uploaded while loading to the own columns only, and finds it', async () => {
    await upload(a.apiKey.key, DOCS.during);
    const now = await placement(db, a.tenant.id);
    expect(now).toMatchObject({ chunks_shared: 0, chunks_own: now.chunks, entities_shared: 0, entities_own: now.entities, edges_shared: 0, edges_own: now.edges });
    expect(now.chunks).toBe(2);
    expect(await foundByVector(a.tenant.id, 'Who grows quince trees at the Brambleford orchard?')).toContain(DOCS.during.text);
    // A loading graph's documents are background work, behind every tenant's ordinary documents (issue 34.1).
    const [queued] = await queryRows<{ kind: string; background: boolean }>(db, sql`SELECT kind, background FROM jobs WHERE tenant_id = ${a.tenant.id} ORDER BY id DESC LIMIT 1`);
    expect(queued).toEqual({ kind: 'ingest_document', background: true });
  });

  it("asks a question of a loading graph in its own columns (the API reads the graph's tier)", async () => {
    const recorder = recordStatements(t.app);
    try {
      const answered = await t.http
        .post('/v1/query')
        .set('X-API-Key', a.apiKey.key)
        // local: its entity search is a vector search in every case (naive's chunk vectors join
        // only when the words find nothing, with the offline embedder: record 0076).
        .send({ query: 'Who grows quince trees at the Brambleford orchard?', mode: 'local' })
        .expect(200);
      expect(JSON.stringify(answered.body)).toContain('Brambleford');
    } finally {
      recorder.stop();
    }
    const vectorSearches = recorder.texts.filter((text) => /<=>/.test(text));
    expect(vectorSearches.length).toBeGreaterThan(0);
    for (const text of vectorSearches) {
      expect(text).toMatch(/\b[a-z]\.own_embedding\b/);
      expect(text).not.toMatch(/\b[a-z]\.embedding\b/);
    }
  });

  it("leaves other tenants' graphs as they were: shared columns, no bulk load, and their own begin refused past the store's maximum", async () => {
    const other = await placement(db, b.tenant.id);
    expect(other.chunks).toBe(1);
    expect(other).toMatchObject({ chunks_shared: 1, chunks_own: 0, entities_own: 0, edges_own: 0, entities_shared: other.entities, edges_shared: other.edges });
    expect((await bulkLoad(b.apiKey.key)).body).toEqual({ state: 'none', started_at: null });
    // Another tenant's finish concerns its own graph, which has no load: a's goes on.
    await t.http.post('/v1/bulk-load/finish').set('X-API-Key', b.apiKey.key).expect(409);
    expect((await bulkLoad(a.apiKey.key)).body.state).toBe('loading');
    // LOCI_BULK_LOAD_GRAPHS_MAX=1 here, and a's graph holds it.
    const refused = await t.http.post('/v1/bulk-load').set('X-API-Key', b.apiKey.key).expect(409);
    expect(JSON.stringify(refused.body)).toContain('maximum of 1');
    expect(await foundByVector(b.tenant.id, 'Who keeps the Windmere observatory telescope?')).toEqual([DOCS.other.text]);
  });

  it('needs the write scope to begin or finish; the read scope sees the state', async () => {
    const reader = await createApiKey(t.app, a.tenant.id, { scopes: ['read'] });
    await t.http.post('/v1/bulk-load').set('X-API-Key', reader.key).expect(403);
    await t.http.post('/v1/bulk-load/finish').set('X-API-Key', reader.key).expect(403);
    expect((await bulkLoad(reader.key)).body.state).toBe('loading');
  });

  it("builds the graph's own HNSW indexes when the load finishes, and searches plan on them", async () => {
    const recorder = recordStatements(t.app);
    try {
      const finished = await t.http.post('/v1/bulk-load/finish').set('X-API-Key', a.apiKey.key).expect(202);
      expect(finished.body.state).toMatch(/^(indexing|indexed)$/);
      await t.app.get(IngestWorker).drain();
    } finally {
      recorder.stop();
    }
    // Each build on a session of its own with LOCI_BULK_INDEX_MEMORY_MB (512) of memory, reset after.
    const session = recorder.texts.filter((text) => /maintenance_work_mem|CREATE INDEX/.test(text));
    expect(session).toEqual(
      Array.from({ length: 4 }, () => [
        "SET maintenance_work_mem = '512MB'",
        expect.stringMatching(new RegExp(`^CREATE INDEX CONCURRENTLY IF NOT EXISTS graph_${graphA}_\\w+ ON \\w+ USING hnsw`)),
        'RESET maintenance_work_mem',
      ]).flat(),
    );
    expect((await bulkLoad(a.apiKey.key)).body.state).toBe('indexed');
    expect((await t.http.post('/v1/bulk-load/finish').set('X-API-Key', a.apiKey.key).expect(202)).body.state).toBe('indexed');

    const built = await queryRows<{ name: string; valid: boolean; definition: string }>(
      db,
      sql`SELECT c.relname AS name, i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname LIKE ${`graph_${graphA}_%`} ORDER BY c.relname`,
    );
    // The offline embedder here is 1024 wide: one index per searched vector at that width.
    expect(built.map((row) => row.name)).toEqual([
      `graph_${graphA}_chunks_own_embedding`,
      `graph_${graphA}_chunks_own_summary_embedding`,
      `graph_${graphA}_edges_own_embedding`,
      `graph_${graphA}_entities_own_embedding`,
    ]);
    for (const row of built) {
      expect(row.valid).toBe(true);
      expect(row.definition).toMatch(new RegExp(`USING hnsw \\(own_\\w+ halfvec_cosine_ops\\) WHERE \\(graph_id = ${graphA}\\)`));
    }

    // The chunk search of the graph can use its own indexes (sorting forbidden, so only an
    // ordered index scan answers); a search of another graph cannot see them.
    const plan = async (graphId: number, tenantId: string, vectorTier: 'own' | 'shared') =>
      db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL enable_sort = off`);
        const rows = await queryRows<{ 'QUERY PLAN': string }>(
          tx,
          sql`EXPLAIN ${chunkSearchSql({ tenantId, graphId, vectorTier }, embedder.embedText('bronze bells'), 5)}`,
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    const own = await plan(graphA, a.tenant.id, 'own');
    expect(own).toContain(`graph_${graphA}_chunks_own_embedding`);
    expect(own).toContain(`graph_${graphA}_chunks_own_summary_embedding`);
    const graphB = (await t.app.get(GraphsRepository).defaultGraph(b.tenant.id)).id;
    expect(await plan(graphB, b.tenant.id, 'own')).not.toContain(`graph_${graphA}_`);

    // Written after the load: in the graph's own columns (and its own indexes), found with the rest.
    await upload(a.apiKey.key, DOCS.after);
    const after = await placement(db, a.tenant.id);
    expect(after).toMatchObject({ chunks: 3, chunks_shared: 0, chunks_own: 3, entities_shared: 0, edges_shared: 0 });
    for (const [question, doc] of [
      ['Who runs the Quayside Lantern ferry company?', DOCS.before],
      ['Who grows quince trees at the Brambleford orchard?', DOCS.during],
      ['Who casts bronze bells at the Copperwick foundry?', DOCS.after],
    ] as const) {
      expect((await foundByVector(a.tenant.id, question))[0]).toBe(doc.text);
    }
  });

  it('a graph whose load ended cannot begin another (409), and keeps its own tier', async () => {
    const refused = await t.http.post('/v1/bulk-load').set('X-API-Key', a.apiKey.key).expect(409);
    expect(JSON.stringify(refused.body)).toContain('has ended');
    expect((await bulkLoad(a.apiKey.key)).body.state).toBe('indexed');
  });

  it('a build that died left an invalid index: the next attempt drops it and builds it again', async () => {
    const victim = ownIndexesOf(graphA).find((index) => index.name === `graph_${graphA}_chunks_own_embedding`)!;
    // What a CREATE INDEX CONCURRENTLY cut short leaves behind: the index, marked invalid.
    await db.execute(sql`UPDATE pg_index SET indisvalid = false WHERE indexrelid = ${victim.name}::regclass`);
    await db.execute(sql`UPDATE graphs SET own_vectors = 'indexing' WHERE id = ${graphA}`);
    const bulk = t.app.get(BulkLoadRepository);
    expect(await bulk.indexState(victim.name)).toBe('invalid');
    await t.app.get(BulkLoadService).buildOwnIndexes({ tenantId: a.tenant.id, payload: { graphId: graphA } } as Job);
    expect(await bulk.indexState(victim.name)).toBe('valid');
    expect((await bulk.state(a.tenant.id, graphA)).state).toBe('indexed');
  });

  it("re-embeds a graph in its own tier into its own columns", async () => {
    // As if another embedder had written the graph: the re-embedding moves every row back to MODEL.
    for (const table of ['chunks', 'entities', 'edges']) {
      await db.execute(sql`UPDATE ${sql.raw(table)} SET embedding_model = 'local:another' WHERE tenant_id = ${a.tenant.id}`);
    }
    const report = await t.app.get(GraphReembedder).run({ tenantId: a.tenant.id, vacuum: false });
    expect(report.chunks).toBe(3);
    const now = await placement(db, a.tenant.id);
    expect(now).toMatchObject({ chunks_shared: 0, chunks_own: 3, entities_shared: 0, entities_own: now.entities, edges_shared: 0, edges_own: now.edges });
    expect((await foundByVector(a.tenant.id, 'Who casts bronze bells at the Copperwick foundry?'))[0]).toBe(DOCS.after.text);
    // The other tenant's graph, re-embedded the same way, stays in the shared columns.
    await db.execute(sql`UPDATE chunks SET embedding_model = 'local:another' WHERE tenant_id = ${b.tenant.id}`);
    await t.app.get(GraphReembedder).run({ tenantId: b.tenant.id, vacuum: false });
    expect(await placement(db, b.tenant.id)).toMatchObject({ chunks_shared: 1, chunks_own: 0 });
  });

  it("drops the graph's own indexes when its tenant is deleted", async () => {
    const owned = sql`SELECT count(*)::int AS n FROM pg_class WHERE relkind = 'i' AND relname LIKE ${`graph_${graphA}_%`}`;
    expect((await queryRows<{ n: number }>(db, owned))[0].n).toBe(4);
    await t.app.get(TenantLifecycleService).delete(a.tenant.id);
    // Dropped after the deletion's answer, in the background.
    for (let waited = 0; (await queryRows<{ n: number }>(db, owned))[0].n > 0 && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await queryRows<{ n: number }>(db, owned))[0].n).toBe(0);
    expect(await t.app.get(BulkLoadRepository).ownIndexesOfDeletedGraphs()).toEqual([]);
  });

  it('finishes a load whose client went away: nothing uploaded or ingested for LOCI_BULK_LOAD_IDLE_MS (15 min)', async () => {
    // a's graph went with its tenant, so b may begin within the store's maximum.
    await t.http.post('/v1/bulk-load').set('X-API-Key', b.apiKey.key).expect(200);
    const bulkLoads = t.app.get(BulkLoadService);
    const age = async (minutes: number) => {
      const at = sql`now() - ${minutes} * interval '1 minute'`;
      await db.execute(sql`UPDATE graphs SET bulk_load_started_at = ${at} WHERE tenant_id = ${b.tenant.id}`);
      await db.execute(sql`UPDATE documents SET updated_at = ${at} WHERE tenant_id = ${b.tenant.id}`);
    };
    await age(10);
    expect(await bulkLoads.finishIdleLoads()).toBe(0);
    // A document still waiting to be ingested keeps the load going, however old.
    await age(60);
    await db.execute(sql`UPDATE documents SET status = 'pending' WHERE tenant_id = ${b.tenant.id}`);
    expect(await bulkLoads.finishIdleLoads()).toBe(0);
    expect((await bulkLoad(b.apiKey.key)).body.state).toBe('loading');
    await db.execute(sql`UPDATE documents SET status = 'processed' WHERE tenant_id = ${b.tenant.id}`);
    expect(await bulkLoads.finishIdleLoads()).toBe(1);
    await t.app.get(IngestWorker).drain();
    expect((await bulkLoad(b.apiKey.key)).body.state).toBe('indexed');
    expect(await foundByVector(b.tenant.id, 'Who keeps the Windmere observatory telescope?')).toEqual([DOCS.other.text]);
  });
});

(onPostgres ? describe : describe.skip)('bulk mode: the store maximum under concurrent begins (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_BULK_LOAD_GRAPHS_MAX: '1' });
  });
  afterAll(() => t.close());

  it('lets exactly one of several tenants beginning at once past a maximum of one', async () => {
    const casts = await Promise.all(Array.from({ length: 4 }, () => createTenantWithPeople(t.app)));
    const answers = await Promise.all(casts.map((cast) => t.http.post('/v1/bulk-load').set('X-API-Key', cast.apiKey.key)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    const [{ n }] = await queryRows<{ n: number }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT count(*)::int AS n FROM graphs WHERE own_vectors IS NOT NULL`,
    );
    expect(n).toBe(1);
  });
});
