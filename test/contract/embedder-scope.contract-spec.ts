import { randomUUID } from 'node:crypto';
import { chunks, Database, documents, entities, findMigrationsFolder, graphs, GraphWritesRepository, openDatabase, tenants } from '@loci/db';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { RetrievalService } from '@loci/retrieval';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * Vectors of different embedders are never compared: a question embedded by one model is
 * searched only against rows that model embedded (rows record `embedding_model`).
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const embedder = new LocalHashingEmbedder();

describe(`vector search by embedder (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;
  let retrieval: RetrievalService;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
    retrieval = new RetrievalService(database);
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  it('compares the question only with chunks of the same embedding model', async () => {
    const [tenant] = await database.db.insert(tenants).values({ name: `embedders ${randomUUID()}` }).returning();
    const [graph] = await database.db.insert(graphs).values({ tenantId: tenant.id, kind: 'default', name: 'default' }).returning();
    const scope = { tenantId: tenant.id, graphId: graph.id };
    const text = 'The lighthouse on the cliff was painted red in 1920.';
    for (const model of ['local:local-hash-v1', 'openai:text-embedding-3-small']) {
      const [document] = await database.db
        .insert(documents)
        .values({ ...scope, kind: 'document', name: model, contentHash: randomUUID(), text, status: 'processed' })
        .returning();
      await database.db
        .insert(chunks)
        .values({ ...scope, documentId: document.id, index: 0, text, tokenCount: 12, embedding: embedder.embedText(text), embeddingModel: model });
    }
    const ask = (embeddingModel?: string) =>
      retrieval.retrieve({ ...scope, mode: 'naive', questionVector: embedder.embedText('red lighthouse'), embeddingModel });
    expect((await ask('local:local-hash-v1')).chunks.map((c) => c.documentName)).toEqual(['local:local-hash-v1']);
    expect((await ask('openai:text-embedding-3-small')).chunks.map((c) => c.documentName)).toEqual(['openai:text-embedding-3-small']);
    expect((await ask()).chunks).toHaveLength(2);
  });

  it('resolves a name only against entities the same embedder embedded', async () => {
    const [tenant] = await database.db.insert(tenants).values({ name: `names ${randomUUID()}` }).returning();
    const [graph] = await database.db.insert(graphs).values({ tenantId: tenant.id, kind: 'default', name: 'default' }).returning();
    const vector = embedder.embedText('Acme Corporation');
    const [acme] = await database.db
      .insert(entities)
      .values({
        tenantId: tenant.id,
        graphId: graph.id,
        name: 'Acme Corporation',
        normalizedName: 'acme corporation',
        embedding: vector,
        nameEmbedding: vector,
        embeddingModel: 'local:local-hash-v1',
      })
      .returning();
    const writes = new GraphWritesRepository();
    const nearest = (embeddingModel: string, exactUpTo?: number) =>
      database.db.transaction((tx) => writes.nearestEntitiesByName(tx as never, tenant.id, graph.id, [vector], { embeddingModel, exactUpTo }));
    for (const exactUpTo of [1000, 0]) {
      expect((await nearest('local:local-hash-v1', exactUpTo))[0]).toMatchObject({ id: acme.id });
      // A graph half moved to another embedder: the new name is never compared with the old vectors.
      expect(await nearest('openai:text-embedding-3-small', exactUpTo)).toEqual([undefined]);
    }
  });
});
