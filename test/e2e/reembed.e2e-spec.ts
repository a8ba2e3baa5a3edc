import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createApp } from '../../apps/api/src/create-app';
import { main } from '../../apps/cli/src/loci';
import { Database, findMigrationsFolder, GraphsRepository, openDatabase, queryRows } from '@loci/db';
import { sql } from 'drizzle-orm';
import { IngestWorker } from '@loci/ingest';
import { RetrievalService } from '@loci/retrieval';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import {
  createTenantWithPeople,
  embeddingModelsOf,
  createTestEnvironment,
  embeddingFor,
  llmDoubleEnv,
  LlmDouble,
  startLlmDouble,
  TestEnvironment,
} from '@loci/testing';

/**
 * `npm run loci -- reembed`: a graph embedded by the offline embedder (model A) moved to an
 * OpenAI-compatible embedder (model B, the loopback double), on the store itself.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const MODEL_A = 'local:local-hash-v1';
const MODEL_B = 'openai:text-embedding-3-small';
const MODEL_C = 'local:local-hash-v1-256d';
const TEXT =
  'Alice Johnson works at Acme Corporation in Berlin. Acme Corporation acquired Globex in 2019. Bob Smith lives in Paris.';

describe(`loci reembed (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let double: LlmDouble;
  let moved: { tenantId: string; graphId: number };
  let untouched: { tenantId: string; graphId: number };

  /** Settings of the same store, the embedder being model B. */
  const envB = () => ({
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    LOCI_DATA_DIR: environment.settings.dataDir,
    DATABASE_URL: environment.settings.database.url,
    JWT_SECRET: environment.settings.jwt.secret,
    ...llmDoubleEnv(double),
    LOCI_EMBED_MODEL: MODEL_B,
  });

  /** The same store, the embedder being the offline one at 256 dimensions (model C). */
  const envC = () => ({ ...envB(), LOCI_EMBED_MODEL: MODEL_A, LOCI_LOCAL_EMBEDDING_DIM: '256' });

  async function reembed(args: string[], env: Record<string, string | undefined> = envB()) {
    let stdout = '';
    let stderr = '';
    const code = await main(['reembed', ...args], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env,
    });
    return { code, stdout, stderr };
  }

  /** Opens the store on its own (the CLI closed its copy), runs `work`, closes it. */
  async function withStore<T>(work: (database: Database) => Promise<T>): Promise<T> {
    const database = await openDatabase(environment.settings);
    try {
      return await work(database);
    } finally {
      await database.close();
    }
  }


  const embedCalls = (database: Database, tenantId: string) =>
    queryRows<{ model: string; cost: number }>(
      database.db,
      sql`SELECT model, cost_micros::int AS cost FROM inferences WHERE tenant_id = ${tenantId} AND stage = 'embed' AND request_id LIKE 'reembed:%'`,
    );

  beforeAll(async () => {
    double = await startLlmDouble();
    // Model A: the default offline embedder, no provider at all.
    environment = await createTestEnvironment({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    const app: INestApplication = await createApp(environment.settings);
    await app.init();
    try {
      const http = request(app.getHttpServer());
      const [a, b] = await Promise.all([createTenantWithPeople(app), createTenantWithPeople(app)]);
      for (const tenant of [a, b]) {
        await http.post('/v1/documents').set({ Authorization: `Bearer ${tenant.apiKey.key}` }).send({ name: 'team.txt', text: TEXT }).expect(202);
      }
      await app.get(IngestWorker).drain();
      const graphs = app.get(GraphsRepository);
      moved = { tenantId: a.tenant.id, graphId: (await graphs.defaultGraph(a.tenant.id)).id };
      untouched = { tenantId: b.tenant.id, graphId: (await graphs.defaultGraph(b.tenant.id)).id };
    } finally {
      await app.close();
    }
  });

  afterAll(async () => {
    await double?.close();
    await environment?.cleanup();
  });

  it('moves every chunk, entity and fact of the graph to model B, metered, and leaves other tenants alone', async () => {
    const before = await withStore((database) => embeddingModelsOf(database, moved.tenantId));
    expect(before.map((r) => [r.table, r.model])).toEqual([
      ['chunks', MODEL_A],
      ['edges', MODEL_A],
      ['entities', MODEL_A],
    ]);

    const run = await reembed(['--tenant', moved.tenantId, '--graph', String(moved.graphId), '--page-size', '2']);
    expect(run.stderr).toContain(`re-embedding with ${MODEL_B}`);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    const count = (table: string) => before.find((r) => r.table === table)!.n;
    expect(report).toMatchObject({ model: MODEL_B, chunks: count('chunks'), entities: count('entities'), edges: count('edges') });
    expect(report.cost_usd).toBeGreaterThan(0);

    await withStore(async (database) => {
      const after = await embeddingModelsOf(database, moved.tenantId);
      expect(after.map((r) => [r.table, r.model, r.n])).toEqual(before.map((r) => [r.table, MODEL_B, r.n]));
      // Cost went through the gateway, to the tenant's ledger, at model B's price.
      const calls = await embedCalls(database, moved.tenantId);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.every((c) => c.model === 'text-embedding-3-small')).toBe(true);
      expect(calls.reduce((sum, c) => sum + c.cost, 0)).toBe(Math.round(report.cost_usd * 1_000_000));
      // The other tenant's graph is still model A's, and was not billed.
      expect((await embeddingModelsOf(database, untouched.tenantId)).every((r) => r.model === MODEL_A)).toBe(true);
      expect(await embedCalls(database, untouched.tenantId)).toEqual([]);
    });
  });

  it('is found by vector search under model B, and no longer under model A', async () => {
    await withStore(async (database) => {
      await database.migrate(findMigrationsFolder());
      const retrieval = new RetrievalService(database);
      // The double embeds a text as embeddingFor(text): the chunk's own vector is its nearest.
      const ask = (embeddingModel: string) =>
        retrieval.retrieve({ ...moved, mode: 'naive', questionVector: embeddingFor(TEXT, 1024), embeddingModel });
      expect((await ask(MODEL_B)).chunks.map((c) => c.text)).toEqual([TEXT]);
      expect((await ask(MODEL_A)).chunks).toEqual([]);
    });
  });

  it('does nothing the second time', async () => {
    const callsBefore = double.openai.embeddings.requests.length;
    const run = await reembed(['--tenant', moved.tenantId]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ model: MODEL_B, chunks: 0, entities: 0, edges: 0, cost_usd: 0 });
    expect(double.openai.embeddings.requests.length).toBe(callsBefore);
  });

  it('moves a graph of the offline embedder to 256 dimensions: every vector in the 256-wide columns, none left at 1024, found at 256', async () => {
    const run = await reembed(['--tenant', untouched.tenantId, '--graph', String(untouched.graphId)], envC());
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: MODEL_C, cost_usd: 0 });
    await withStore(async (database) => {
      expect((await embeddingModelsOf(database, untouched.tenantId)).every((r) => r.model === MODEL_C)).toBe(true);
      const [widths] = await queryRows<Record<string, number>>(
        database.db,
        sql`SELECT (SELECT count(embedding) + count(summary_embedding) FROM chunks WHERE tenant_id = ${untouched.tenantId})::int AS chunks_wide,
                   (SELECT count(embedding_256) FROM chunks WHERE tenant_id = ${untouched.tenantId})::int AS chunks_narrow,
                   (SELECT count(embedding) + count(name_embedding) FROM entities WHERE tenant_id = ${untouched.tenantId})::int AS entities_wide,
                   (SELECT count(*) FILTER (WHERE embedding_256 IS NOT NULL AND name_embedding_256 IS NOT NULL) FROM entities WHERE tenant_id = ${untouched.tenantId})::int AS entities_narrow,
                   (SELECT count(embedding) FROM edges WHERE tenant_id = ${untouched.tenantId})::int AS edges_wide,
                   (SELECT count(embedding_256) FROM edges WHERE tenant_id = ${untouched.tenantId})::int AS edges_narrow`,
      );
      const count = async (table: string) =>
        (await embeddingModelsOf(database, untouched.tenantId)).find((r) => r.table === table)!.n;
      expect(widths).toEqual({
        chunks_wide: 0, chunks_narrow: await count('chunks'),
        entities_wide: 0, entities_narrow: await count('entities'),
        edges_wide: 0, edges_narrow: await count('edges'),
      });
      const retrieval = new RetrievalService(database);
      const found = await retrieval.retrieve({
        ...untouched, mode: 'naive', questionVector: new LocalHashingEmbedder(256).embedText('Where does Bob Smith live?'), embeddingModel: MODEL_C,
      });
      expect(found.chunks.map((c) => c.text)).toEqual([TEXT]);
    });
  });

  it('refuses bad options with exit code 2 and a message', async () => {
    expect((await reembed(['--graph', '3'])).stderr).toMatch(/--graph needs --tenant/);
    expect((await reembed(['--tenant', 'acme'])).code).toBe(2);
    expect((await reembed(['--tenant', moved.tenantId, '--graph', 'x'])).code).toBe(2);
    expect((await reembed(['--page-size', '0'])).code).toBe(2);
  });
});
