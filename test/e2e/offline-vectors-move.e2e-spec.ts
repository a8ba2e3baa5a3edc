import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { sql } from 'drizzle-orm';
import { loadSettings } from '@loci/config';
import { createApp } from '../../apps/api/src/create-app';
import { Database, DATABASE, GraphsRepository, queryRows } from '@loci/db';
import { IngestWorker, OfflineVectorsMover } from '@loci/ingest';
import { RetrievalService } from '@loci/retrieval';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import {
  createTenantWithPeople,
  createTestEnvironment,
  embeddingModelsOf,
  llmDoubleEnv,
  LlmDouble,
  recordStatements,
  startLlmDouble,
  StatementRecorder,
  TestEnvironment,
} from '@loci/testing';

/**
 * A starting worker moves the rows another offline embedder wrote to the configured one
 * (OfflineVectorsMover): a store ingested at the default 1024 dimensions, started again with
 * LOCI_LOCAL_EMBEDDING_DIM=256, answers from every row without `loci reembed`. Rows a paid
 * model wrote stay as they are, and nothing moves when the embedder is a paid model or the
 * switch is off. On whichever store the environment selects (DATABASE_URL → PostgreSQL,
 * otherwise PGlite).
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const WIDE_MODEL = 'local:local-hash-v1';
const NARROW_MODEL = 'local:local-hash-v1-256d';
const PAID_MODEL = 'openai:text-embedding-3-small';
const TEXT =
  'Alice Johnson works at Acme Corporation in Berlin. Acme Corporation acquired Globex in 2019. Bob Smith lives in Paris.';

describe(`offline vectors move to the configured offline embedder when a worker starts (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let double: LlmDouble;
  let offline: { tenantId: string; graphId: number };
  let paid: { tenantId: string; graphId: number };

  /** The same store's settings with `env` on top (the offline embedder at 1024 unless changed). */
  const settingsWith = (env: Record<string, string | undefined>) =>
    loadSettings({
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
      LOCI_DATA_DIR: environment.settings.dataDir,
      DATABASE_URL: environment.settings.database.url,
      LOCI_DB_POOL_MAX: '4',
      REDIS_URL: process.env.REDIS_URL,
      JWT_SECRET: environment.settings.jwt.secret,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      ...env,
    });

  /** Starts an app (worker in process) with `env`, runs `work`, closes it; `beforeInit` sees the app before it starts. */
  async function started<T>(
    env: Record<string, string | undefined>,
    work: (app: INestApplication) => Promise<T>,
    beforeInit?: (app: INestApplication) => void,
  ): Promise<T> {
    const app = await createApp(settingsWith(env));
    beforeInit?.(app);
    await app.init();
    try {
      return await work(app);
    } finally {
      await app.close();
    }
  }


  /** Vectors a tenant holds in each width's columns, all tables together. */
  const widthsOf = async (database: Database, tenantId: string) => {
    const [row] = await queryRows<{ wide: number; narrow: number }>(
      database.db,
      sql`SELECT (SELECT count(embedding) + count(summary_embedding) FROM chunks WHERE tenant_id = ${tenantId})
               + (SELECT count(embedding) + count(name_embedding) FROM entities WHERE tenant_id = ${tenantId})
               + (SELECT count(embedding) FROM edges WHERE tenant_id = ${tenantId}) AS wide,
                 (SELECT count(embedding_256) + count(summary_embedding_256) FROM chunks WHERE tenant_id = ${tenantId})
               + (SELECT count(embedding_256) + count(name_embedding_256) FROM entities WHERE tenant_id = ${tenantId})
               + (SELECT count(embedding_256) FROM edges WHERE tenant_id = ${tenantId}) AS narrow`,
    );
    return { wide: Number(row.wide), narrow: Number(row.narrow) };
  };

  beforeAll(async () => {
    double = await startLlmDouble();
    environment = await createTestEnvironment({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    await started({}, async (app) => {
      const http = request(app.getHttpServer());
      const [a, b] = await Promise.all([createTenantWithPeople(app), createTenantWithPeople(app)]);
      for (const tenant of [a, b]) {
        await http.post('/v1/documents').set({ Authorization: `Bearer ${tenant.apiKey.key}` }).send({ name: 'team.txt', text: TEXT }).expect(202);
      }
      await app.get(IngestWorker).drain();
      const graphs = app.get(GraphsRepository);
      offline = { tenantId: a.tenant.id, graphId: (await graphs.defaultGraph(a.tenant.id)).id };
      paid = { tenantId: b.tenant.id, graphId: (await graphs.defaultGraph(b.tenant.id)).id };
      // Tenant b's graph stands for one a paid model embedded (its vectors are 1024 wide as a
      // paid model's are; only the name matters to the mover).
      const { db } = app.get<Database>(DATABASE);
      for (const table of ['chunks', 'entities', 'edges']) {
        await db.execute(sql`UPDATE ${sql.raw(table)} SET embedding_model = ${PAID_MODEL} WHERE tenant_id = ${paid.tenantId}`);
      }
    });
  });

  afterAll(async () => {
    await double?.close();
    await environment?.cleanup();
  });

  it('starts at 256 dimensions: every row of the offline embedder moves to the 256-wide one and is found by its vectors', async () => {
    let recorder: StatementRecorder | undefined;
    await started({ LOCI_LOCAL_EMBEDDING_DIM: '256' }, async (app) => {
      const move = await app.get(OfflineVectorsMover).settled();
      recorder!.stop();
      // On PGlite a statement's HNSW insertions hold the API's thread: one row a statement there.
      const entityWrites = recorder!.texts.filter((text) => /^\s*UPDATE entities t SET embedding/.test(text)).length;
      expect(entityWrites).toBe(onPostgres ? Math.ceil(move!.entities / 25) : move!.entities);
      expect(move).toMatchObject({ model: NARROW_MODEL, failedTenants: 0 });
      expect(move!.chunks).toBeGreaterThan(0);
      expect(move!.entities).toBeGreaterThan(0);
      expect(move!.edges).toBeGreaterThan(0);

      const database = app.get<Database>(DATABASE);
      const models = await embeddingModelsOf(database, offline.tenantId);
      expect(models.map((r) => r.model)).toEqual([NARROW_MODEL, NARROW_MODEL, NARROW_MODEL]);
      const total = models.reduce((n, r) => n + r.n, 0);
      const widths = await widthsOf(database, offline.tenantId);
      expect(widths.wide).toBe(0);
      expect(widths.narrow).toBeGreaterThanOrEqual(total);

      // By its vector alone (no BM25): the question embedded as the app now embeds, at 256.
      const found = await app.get(RetrievalService).retrieve({
        ...offline,
        mode: 'naive',
        questionVector: new LocalHashingEmbedder(256).embedText('Where does Bob Smith live?'),
        embeddingModel: NARROW_MODEL,
      });
      expect(found.chunks.map((c) => c.text)).toEqual([TEXT]);
    }, (app) => (recorder = recordStatements(app)));
  });

  it('leaves the rows a paid model wrote as they were', async () => {
    await started({ LOCI_LOCAL_EMBEDDING_DIM: '256' }, async (app) => {
      const database = app.get<Database>(DATABASE);
      expect((await embeddingModelsOf(database, paid.tenantId)).map((r) => r.model)).toEqual([PAID_MODEL, PAID_MODEL, PAID_MODEL]);
      const widths = await widthsOf(database, paid.tenantId);
      expect(widths.narrow).toBe(0);
      expect(widths.wide).toBeGreaterThan(0);
      await app.get(OfflineVectorsMover).settled();
    });
  });

  it('moves nothing when LOCI_MOVE_LOCAL_VECTORS is false', async () => {
    // The offline rows are at 256 since the first test; this start is at 1024 with the switch off.
    await started({ LOCI_MOVE_LOCAL_VECTORS: 'false' }, async (app) => {
      expect(await app.get(OfflineVectorsMover).settled()).toBeNull();
      const models = await embeddingModelsOf(app.get<Database>(DATABASE), offline.tenantId);
      expect(models.map((r) => r.model)).toEqual([NARROW_MODEL, NARROW_MODEL, NARROW_MODEL]);
    });
  });

  it('moves nothing, and calls no model, when the embedder is a paid model', async () => {
    const calls = double.openai.embeddings.requests.length;
    await started({ ...llmDoubleEnv(double), LOCI_EMBED_MODEL: PAID_MODEL }, async (app) => {
      expect(await app.get(OfflineVectorsMover).settled()).toBeNull();
      const models = await embeddingModelsOf(app.get<Database>(DATABASE), offline.tenantId);
      expect(models.map((r) => r.model)).toEqual([NARROW_MODEL, NARROW_MODEL, NARROW_MODEL]);
    });
    expect(double.openai.embeddings.requests.length).toBe(calls);
  });

  it('moves them back when started at the full width again, and moves nothing the time after', async () => {
    await started({}, async (app) => {
      const move = await app.get(OfflineVectorsMover).settled();
      expect(move).toMatchObject({ model: WIDE_MODEL, failedTenants: 0 });
      expect(move!.chunks + move!.entities + move!.edges).toBeGreaterThan(0);
      const database = app.get<Database>(DATABASE);
      expect((await embeddingModelsOf(database, offline.tenantId)).map((r) => r.model)).toEqual([WIDE_MODEL, WIDE_MODEL, WIDE_MODEL]);
      expect((await widthsOf(database, offline.tenantId)).narrow).toBe(0);
    });
    await started({}, async (app) => {
      expect(await app.get(OfflineVectorsMover).settled()).toEqual({ model: WIDE_MODEL, chunks: 0, entities: 0, edges: 0, failedTenants: 0 });
    });
  });

  it('does not start without a worker in the process (the worker process moves them)', async () => {
    await started({ LOCI_RUN_WORKER: 'false', LOCI_LOCAL_EMBEDDING_DIM: '256' }, async (app) => {
      expect(await app.get(OfflineVectorsMover).settled()).toBeNull();
      expect((await embeddingModelsOf(app.get<Database>(DATABASE), offline.tenantId)).map((r) => r.model)).toEqual([WIDE_MODEL, WIDE_MODEL, WIDE_MODEL]);
    });
  });
});
