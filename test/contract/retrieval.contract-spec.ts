import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  chunks,
  Database,
  documents,
  edgeChunks,
  edgeDocuments,
  edges,
  entities,
  entityChunks,
  entityDocuments,
  findMigrationsFolder,
  graphs,
  GraphWritesRepository,
  openDatabase,
  PostgresDatabase,
  queryRows,
  tenants,
  withSessionSettings,
} from '@loci/db';
import { countTokens } from '@loci/llm';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import {
  chunkSearchSql,
  edgeSearchSql,
  edgesAroundSql,
  entitySearchSql,
  EXPANSION_EDGES_PER_DIRECTION,
  MODEL_EMBEDDER_WEIGHTS,
  RetrievalMode,
  RetrievalRepository,
  RetrievalRequest,
  RetrievalService,
  RetrievedContext,
  renderEntity,
  renderRelation,
  roundRobin,
  searchTransaction,
  SUPPORTING_CHUNKS_PER_ENTITY,
} from '@loci/retrieval';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * The retrieval of /v1/query on the real store (PGlite, or Postgres + pgvector with
 * DATABASE_URL): modes, live/ended/superseded facts, processed-only visibility, tenant
 * isolation, token budgets. Vectors come from the offline hashing embedder, so similarity is real.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const embedder = new LocalHashingEmbedder();
const embed = (text: string) => embedder.embedText(text);
const MODES: RetrievalMode[] = ['local', 'global', 'hybrid', 'naive', 'mix'];
const ROOMY = { entityTokens: 100_000, relationTokens: 100_000, chunkTokens: 100_000 };

const LONG_CHUNK = Array.from(
  { length: 40 },
  (_, i) => `Stall ${i + 1} of the Bolhao market in Porto sells fresh sardines, cork crafts and green wine.`,
).join(' ');

interface Seeded {
  tenantId: string;
  graphId: number;
  chunk: Record<'alice' | 'bob' | 'porto' | 'failed', number>;
  entity: Record<'alice' | 'globex' | 'acme' | 'bob' | 'lisbon' | 'berlin' | 'porto' | 'zed' | 'nautilox', number>;
  edge: Record<'worksAtGlobex' | 'worksAtAcme' | 'livesInLisbon' | 'livesInBerlin' | 'zedOwns', number>;
}

describe(`retrieval contract (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;
  let retrieval: RetrievalService;
  let graph: Seeded;
  let twin: Seeded;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
    retrieval = new RetrievalService(database);
    // Two tenants with the very same text: each must only ever see its own rows.
    graph = await seedGraph();
    twin = await seedGraph();
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  async function createGraph(): Promise<{ tenantId: string; graphId: number }> {
    const [tenant] = await database.db.insert(tenants).values({ name: `retrieval ${randomUUID()}` }).returning();
    const [row] = await database.db.insert(graphs).values({ tenantId: tenant.id, kind: 'default', name: 'default' }).returning();
    return { tenantId: tenant.id, graphId: row.id };
  }

  async function processedDocument(tenantId: string, graphId: number, name: string) {
    const [row] = await database.db
      .insert(documents)
      .values({ tenantId, graphId, kind: 'document', name, contentHash: randomUUID(), text: name, status: 'processed' })
      .returning();
    return row;
  }

  async function seedGraph(): Promise<Seeded> {
    const { tenantId, graphId } = await createGraph();
    const db = database.db;
    const doc = async (name: string, status: 'processed' | 'failed') => {
      const [row] = await db
        .insert(documents)
        .values({ tenantId, graphId, kind: 'document', name, contentHash: randomUUID(), text: name, status, documentDate: new Date('2024-01-15') })
        .returning();
      return row.id;
    };
    const people = await doc('people.txt', 'processed');
    const market = await doc('market.txt', 'processed');
    const broken = await doc('broken.txt', 'failed');

    const chunk = async (documentId: number, index: number, text: string) => {
      const [row] = await db
        .insert(chunks)
        .values({ tenantId, graphId, documentId, index, text, tokenCount: countTokens(text), summary: text.slice(0, 80), embedding: embed(text), summaryEmbedding: embed(text.slice(0, 80)), embeddingModel: 'local-hash' })
        .returning();
      return row.id;
    };
    const chunkIds = {
      alice: await chunk(people, 0, 'Alice Martin joined Globex in July 2023 as chief engineer. Before that she worked at Acme Corporation.'),
      bob: await chunk(people, 1, 'Bob Stone lived in Lisbon from 2015 until 2021, when he moved to Berlin.'),
      porto: await chunk(market, 0, LONG_CHUNK),
      failed: await chunk(broken, 0, 'Zed Quorx owns a purple submarine called Nautilox, moored at Globex docks.'),
    };

    const names: Record<string, string> = {};
    const entity = async (key: string, name: string, type: string, description: string, support: Array<[number, number]>) => {
      const [row] = await db
        .insert(entities)
        .values({ tenantId, graphId, name, normalizedName: name.toLowerCase(), type, description, embedding: embed(`${name}: ${description}`), nameEmbedding: embed(name), embeddingModel: 'local-hash' })
        .returning();
      names[key] = name;
      for (const [documentId, chunkId] of support) {
        await db.insert(entityDocuments).values({ tenantId, entityId: row.id, documentId }).onConflictDoNothing();
        await db.insert(entityChunks).values({ tenantId, entityId: row.id, chunkId });
      }
      return row.id;
    };
    const entityIds = {
      alice: await entity('alice', 'Alice Martin', 'person', 'Chief engineer at Globex', [[people, chunkIds.alice]]),
      // Also named by the failed document: one processed supporter is enough to be visible.
      globex: await entity('globex', 'Globex', 'organization', 'Engineering company', [[people, chunkIds.alice], [broken, chunkIds.failed]]),
      acme: await entity('acme', 'Acme Corporation', 'organization', 'Former employer of Alice Martin', [[people, chunkIds.alice]]),
      bob: await entity('bob', 'Bob Stone', 'person', 'Lived in Lisbon, now in Berlin', [[people, chunkIds.bob]]),
      lisbon: await entity('lisbon', 'Lisbon', 'city', 'Capital of Portugal', [[people, chunkIds.bob]]),
      berlin: await entity('berlin', 'Berlin', 'city', 'Capital of Germany', [[people, chunkIds.bob]]),
      porto: await entity('porto', 'Bolhao market', 'place', 'Market in Porto selling sardines', [[market, chunkIds.porto]]),
      zed: await entity('zed', 'Zed Quorx', 'person', 'Owner of a purple submarine', [[broken, chunkIds.failed]]),
      nautilox: await entity('nautilox', 'Nautilox', 'vehicle', 'A purple submarine', [[broken, chunkIds.failed]]),
    };

    const edge = async (
      source: keyof typeof entityIds,
      relation: string,
      target: keyof typeof entityIds,
      description: string,
      documentId: number,
      chunkId: number,
      dates: { validAt?: string; invalidAt?: string; expired?: boolean } = {},
    ) => {
      const [row] = await db
        .insert(edges)
        .values({
          tenantId, graphId, sourceId: entityIds[source], targetId: entityIds[target], relation, description,
          keywords: relation.replace(/_/g, ' '),
          embedding: embed(`${names[source]} ${relation.replace(/_/g, ' ')} ${names[target]}. ${description}`),
          embeddingModel: 'local-hash',
          validAt: dates.validAt ? new Date(dates.validAt) : null,
          invalidAt: dates.invalidAt ? new Date(dates.invalidAt) : null,
          expiredAt: dates.expired ? new Date() : null,
          artifactId: documentId,
        })
        .returning();
      await db.insert(edgeDocuments).values({ tenantId, edgeId: row.id, documentId });
      await db.insert(edgeChunks).values({ tenantId, edgeId: row.id, chunkId });
      return row.id;
    };
    const edgeIds = {
      worksAtGlobex: await edge('alice', 'works_at', 'globex', 'Alice Martin works at Globex as chief engineer', people, chunkIds.alice, { validAt: '2023-07-01' }),
      worksAtAcme: await edge('alice', 'works_at', 'acme', 'Alice Martin works at Acme Corporation as engineer', people, chunkIds.alice, { validAt: '2018-01-01', invalidAt: '2023-07-01', expired: true }),
      livesInLisbon: await edge('bob', 'lives_in', 'lisbon', 'Bob Stone lives in Lisbon', people, chunkIds.bob, { validAt: '2015-01-01', invalidAt: '2021-05-01' }),
      livesInBerlin: await edge('bob', 'lives_in', 'berlin', 'Bob Stone lives in Berlin', people, chunkIds.bob, { validAt: '2021-05-01' }),
      zedOwns: await edge('zed', 'owns', 'nautilox', 'Zed Quorx owns the purple submarine Nautilox', broken, chunkIds.failed),
    };
    return { tenantId, graphId, chunk: chunkIds, entity: entityIds, edge: edgeIds };
  }

  /** The same question in every vector slot, so any mode can be asked it. */
  function ask(target: Seeded, mode: RetrievalMode, question: string, extra: Partial<RetrievalRequest> = {}) {
    const vector = embed(question);
    return retrieval.retrieve({
      tenantId: target.tenantId, graphId: target.graphId, mode,
      questionVector: vector, lowLevelVector: vector, highLevelVector: vector, budgets: ROOMY, ...extra,
    });
  }

  const ids = (context: RetrievedContext) => ({
    chunks: context.chunks.map((c) => c.chunkId),
    entities: context.entities.map((e) => e.id),
    relations: context.relations.map((r) => r.id),
  });

  describe('modes', () => {
    it('local: finds the entity, its live edges (one hop) and the chunk supporting them', async () => {
      const context = await ask(graph, 'local', 'Alice Martin');
      expect(context.entities[0]).toMatchObject({ id: graph.entity.alice, name: 'Alice Martin', type: 'person' });
      expect(context.entities[0].score).toBeGreaterThan(0.3);
      expect(ids(context).relations).toContain(graph.edge.worksAtGlobex);
      expect(context.chunks[0].chunkId).toBe(graph.chunk.alice);
      expect(context.chunks[0]).toMatchObject({ documentName: 'people.txt', documentDate: new Date('2024-01-15') });
      expect(context.chunks[0].loadedAt).toBeInstanceOf(Date);
      expect(Object.keys(context.timings)).toEqual(expect.arrayContaining(['local.entities', 'local.edges', 'local.chunks', 'total']));
    });

    it('global: finds the fact, its endpoints and the chunk supporting it', async () => {
      const context = await ask(graph, 'global', 'Alice Martin works at Globex');
      const [first] = context.relations;
      expect(first).toMatchObject({ id: graph.edge.worksAtGlobex, source: 'Alice Martin', target: 'Globex', relation: 'works_at' });
      expect(first.validAt).toEqual(new Date('2023-07-01'));
      expect(ids(context).entities).toEqual(expect.arrayContaining([graph.entity.alice, graph.entity.globex]));
      expect(context.chunks[0].chunkId).toBe(graph.chunk.alice);
    });

    it('naive: finds the chunk by its text vector', async () => {
      const context = await ask(graph, 'naive', 'Which market in Porto sells fresh sardines?');
      expect(context.chunks[0].chunkId).toBe(graph.chunk.porto);
      expect(context.chunks[0].score).toBeGreaterThan(0.2);
      expect(context.entities).toEqual([]);
      expect(context.relations).toEqual([]);
    });

    it('hybrid: merges local and global without duplicates', async () => {
      const question = 'Bob Stone lives in Berlin';
      const [local, global, hybrid] = await Promise.all(['local', 'global', 'hybrid'].map((m) => ask(graph, m as RetrievalMode, question)));
      const hybridIds = ids(hybrid);
      expect(new Set(hybridIds.entities).size).toBe(hybridIds.entities.length);
      expect(new Set(hybridIds.relations).size).toBe(hybridIds.relations.length);
      expect(new Set(hybridIds.chunks).size).toBe(hybridIds.chunks.length);
      expect(hybridIds.relations.sort()).toEqual([...new Set([...ids(local).relations, ...ids(global).relations])].sort());
      expect(hybridIds.entities.sort()).toEqual([...new Set([...ids(local).entities, ...ids(global).entities])].sort());
    });

    it('mix: chunks are naive, local and global merged round-robin, without duplicates', async () => {
      const question = 'Alice Martin worked at Acme, Bob Stone moved to Berlin, sardines in Porto';
      const [naive, local, global, mix] = await Promise.all(
        ['naive', 'local', 'global', 'mix'].map((m) => ask(graph, m as RetrievalMode, question)),
      );
      const lists = [naive, local, global].map((c) => ids(c).chunks);
      expect(lists.every((list) => list.length > 0)).toBe(true);
      const expected: number[] = [];
      for (let i = 0; i < Math.max(...lists.map((l) => l.length)); i++) {
        for (const list of lists) if (i < list.length && !expected.includes(list[i])) expected.push(list[i]);
      }
      expect(ids(mix).chunks).toEqual(expected);
      expect(ids(mix).relations).toEqual(roundRobin([ids(local).relations, ids(global).relations], (id) => id));
    });
  });

  describe('one-hop expansion of a hub', () => {
    it('reads only the newest live edges of an entity hit, whatever its degree', async () => {
      const { tenantId, graphId } = await createGraph();
      const db = database.db;
      const doc = await processedDocument(tenantId, graphId, 'hub.txt');
      const [chunkRow] = await db
        .insert(chunks)
        .values({ tenantId, graphId, documentId: doc.id, index: 0, text: 'Hubble Quartz', tokenCount: 3, embedding: embed('Hubble Quartz') })
        .returning();
      const entityOf = async (name: string) => {
        const [row] = await db
          .insert(entities)
          .values({ tenantId, graphId, name, normalizedName: name.toLowerCase(), type: 'organization', embedding: embed(name) })
          .returning();
        await db.insert(entityDocuments).values({ tenantId, entityId: row.id, documentId: doc.id });
        await db.insert(entityChunks).values({ tenantId, entityId: row.id, chunkId: chunkRow.id });
        return row.id;
      };
      const hub = await entityOf('Hubble Quartz');
      const spokes = 3 * EXPANSION_EDGES_PER_DIRECTION;
      const edgeIds: number[] = [];
      for (let i = 0; i < spokes; i++) {
        const spoke = await entityOf(`Spoke ${i}`);
        const [row] = await db
          .insert(edges)
          .values({
            tenantId, graphId, sourceId: hub, targetId: spoke, relation: 'supplies',
            // The oldest facts weigh most: ranked over all of the hub's edges, they would come first.
            weight: i < EXPANSION_EDGES_PER_DIRECTION ? 5 : 1,
            createdAt: new Date(Date.UTC(2024, 0, 1 + i)),
          })
          .returning();
        await db.insert(edgeDocuments).values({ tenantId, edgeId: row.id, documentId: doc.id });
        edgeIds.push(row.id);
      }
      const newest = edgeIds.slice(-EXPANSION_EDGES_PER_DIRECTION);
      const context = await retrieval.retrieve({ tenantId, graphId, mode: 'local', lowLevelVector: embed('Hubble Quartz'), topK: 1, budgets: ROOMY });
      expect(context.entities.map((e) => e.id)).toEqual([hub]);
      // topK 1 keeps two edges: the best of the hub's newest, by endpoint degree, weight, then id.
      expect(ids(context).relations).toEqual(newest.slice(0, 2));
    });
  });

  describe('supporting chunks of a hub', () => {
    it("uses only an entity's newest chunks, whatever how many name it", async () => {
      const { tenantId, graphId } = await createGraph();
      const db = database.db;
      const doc = await processedDocument(tenantId, graphId, 'hub.txt');
      const named = SUPPORTING_CHUNKS_PER_ENTITY + 6;
      const chunkRows = await db
        .insert(chunks)
        .values(Array.from({ length: named }, (_, index) => ({ tenantId, graphId, documentId: doc.id, index, text: `Hubble Quartz ${index}`, tokenCount: 4 })))
        .returning({ id: chunks.id });
      const [hub] = await db
        .insert(entities)
        .values({ tenantId, graphId, name: 'Hubble Quartz', normalizedName: 'hubble quartz', type: 'organization', embedding: embed('Hubble Quartz') })
        .returning();
      await db.insert(entityDocuments).values({ tenantId, entityId: hub.id, documentId: doc.id });
      await db.insert(entityChunks).values(chunkRows.map((row) => ({ tenantId, entityId: hub.id, chunkId: row.id })));

      const context = await retrieval.retrieve({ tenantId, graphId, mode: 'local', lowLevelVector: embed('Hubble Quartz'), topK: 200, budgets: ROOMY });
      const newest = chunkRows.map((row) => row.id).sort((a, b) => b - a).slice(0, SUPPORTING_CHUNKS_PER_ENTITY);
      expect(ids(context).chunks.sort((a, b) => b - a)).toEqual(newest);
    });
  });

  describe('temporal facts', () => {
    it.each(MODES)('never returns a superseded fact (%s)', async (mode) => {
      const context = await ask(graph, mode, 'Alice Martin works at Acme Corporation as engineer');
      expect(ids(context).relations).not.toContain(graph.edge.worksAtAcme);
      if (mode !== 'naive') expect(context.relations.length).toBeGreaterThan(0);
    });

    it.each(['local', 'global', 'hybrid', 'mix'] as RetrievalMode[])('returns an ended fact with its dates (%s)', async (mode) => {
      const context = await ask(graph, mode, 'Bob Stone lives in Lisbon');
      const ended = context.relations.find((r) => r.id === graph.edge.livesInLisbon);
      expect(ended).toMatchObject({ validAt: new Date('2015-01-01'), invalidAt: new Date('2021-05-01') });
      expect(context.relations.find((r) => r.id === graph.edge.livesInBerlin)?.invalidAt).toBeNull();
    });
  });

  describe('visibility', () => {
    it.each(MODES)("never returns a failed document's chunk, entity or fact (%s)", async (mode) => {
      const context = await ask(graph, mode, 'Zed Quorx owns a purple submarine called Nautilox at Globex docks');
      expect(ids(context).chunks).not.toContain(graph.chunk.failed);
      expect(ids(context).entities).not.toContain(graph.entity.zed);
      expect(ids(context).entities).not.toContain(graph.entity.nautilox);
      expect(ids(context).relations).not.toContain(graph.edge.zedOwns);
    });

    it('shows an entity a processed document supports even when a failed one does too', async () => {
      const context = await ask(graph, 'local', 'Globex engineering company');
      expect(ids(context).entities).toContain(graph.entity.globex);
    });

    it.each(MODES)("never returns another tenant's identical rows (%s)", async (mode) => {
      for (const [mine, theirs] of [[graph, twin], [twin, graph]]) {
        const context = await ask(mine, mode, 'Alice Martin works at Globex; Bob Stone in Berlin; sardines in Porto');
        const found = ids(context);
        expect(found.chunks.length + found.entities.length + found.relations.length).toBeGreaterThan(0);
        expect(found.chunks.filter((id) => Object.values(theirs.chunk).includes(id))).toEqual([]);
        expect(found.entities.filter((id) => Object.values(theirs.entity).includes(id))).toEqual([]);
        expect(found.relations.filter((id) => Object.values(theirs.edge).includes(id))).toEqual([]);
      }
    });

    it("finds nothing when the graph id is another tenant's", async () => {
      const context = await ask({ ...graph, graphId: twin.graphId }, 'mix', 'Alice Martin works at Globex');
      expect(ids(context)).toEqual({ chunks: [], entities: [], relations: [] });
      await expect(retrieval.graphHasContent(graph.tenantId, twin.graphId)).resolves.toBe(false);
    });
  });

  describe('budgets', () => {
    it('keeps everything and says so when it fits', async () => {
      const context = await ask(graph, 'mix', 'Alice Martin works at Globex');
      expect(context.truncated).toBe(false);
    });

    it('drops the lowest-ranked entities and relations past their budgets', async () => {
      const question = 'Alice Martin Bob Stone Globex Berlin Lisbon';
      const full = await ask(graph, 'hybrid', question);
      expect(full.entities.length).toBeGreaterThan(2);
      // Room for the first entity and relation, not for the second.
      const budgets = {
        entityTokens: countTokens(renderEntity(full.entities[0])) + 1,
        relationTokens: countTokens(renderRelation(full.relations[0])) + 1,
        chunkTokens: 100_000,
      };
      const cut = await ask(graph, 'hybrid', question, { budgets });
      expect(cut.truncated).toBe(true);
      expect(ids(cut).entities).toEqual(ids(full).entities.slice(0, 1));
      expect(ids(cut).relations).toEqual(ids(full).relations.slice(0, 1));
      expect(cut.chunks).toEqual(full.chunks);
    });

    it('cuts a chunk to the budget left and drops the rest', async () => {
      const context = await ask(graph, 'naive', 'Which market in Porto sells fresh sardines?', { budgets: { chunkTokens: 100 } });
      expect(context.truncated).toBe(true);
      expect(context.chunks).toHaveLength(1);
      expect(LONG_CHUNK.startsWith(context.chunks[0].text)).toBe(true);
      expect(countTokens(context.chunks[0].text)).toBeLessThanOrEqual(100);
      expect(countTokens(context.chunks[0].text)).toBeGreaterThan(80);
    });

    it('drops every chunk when the budget is zero', async () => {
      const context = await ask(graph, 'naive', 'sardines', { budgets: { chunkTokens: 0 } });
      expect(context).toMatchObject({ chunks: [], truncated: true });
    });
  });

  describe('graphHasContent', () => {
    it('is false for an empty graph and for a graph whose only document failed', async () => {
      const empty = await createGraph();
      await expect(retrieval.graphHasContent(empty.tenantId, empty.graphId)).resolves.toBe(false);
      const context = await retrieval.retrieve({ ...empty, mode: 'mix', questionVector: embed('x y'), lowLevelVector: embed('x'), highLevelVector: embed('y') });
      expect(context).toMatchObject({ chunks: [], entities: [], relations: [], truncated: false });

      const [doc] = await database.db
        .insert(documents)
        .values({ ...empty, kind: 'document', name: 'f', contentHash: 'h', text: 'f', status: 'failed' })
        .returning();
      await database.db.insert(chunks).values({ ...empty, documentId: doc.id, index: 0, text: 'f', tokenCount: 1 });
      await expect(retrieval.graphHasContent(empty.tenantId, empty.graphId)).resolves.toBe(false);
    });

    it('is true once a processed document has a chunk', async () => {
      await expect(retrieval.graphHasContent(graph.tenantId, graph.graphId)).resolves.toBe(true);
    });
  });

  describe("the hashing embedder's vector lists (record 0075)", () => {
    const SARDINES = 'The Bolhao market in Porto sells fresh sardines every morning.';
    const TRAMS = 'Lisbon trams climb steep hills to the castle.';

    /** Passages written as ingestion writes them, with their BM25 postings. */
    async function graphWithPassages() {
      const { tenantId, graphId } = await createGraph();
      const document = await processedDocument(tenantId, graphId, 'city notes');
      const writes = new GraphWritesRepository(database);
      const ids: number[] = [];
      for (const [index, text] of [SARDINES, TRAMS].entries()) {
        const row = await writes.insertChunk(
          database.db,
          { tenantId, graphId, documentId: document.id, index, text, tokenCount: countTokens(text), embedding: embed(text), summaryEmbedding: embed(text), embeddingModel: 'local-hash' },
          text,
        );
        ids.push(row.id);
      }
      return { tenantId, graphId, documentId: document.id, sardines: ids[0], trams: ids[1] };
    }

    /** A fact the sardines passage states, visible as ingestion leaves it. */
    async function sardinesFact(scope: Awaited<ReturnType<typeof graphWithPassages>>): Promise<number> {
      const { tenantId, graphId, documentId } = scope;
      const named = async (name: string) => {
        const [row] = await database.db
          .insert(entities)
          .values({ tenantId, graphId, name, normalizedName: name.toLowerCase(), type: 'place', description: name, embedding: embed(name), embeddingModel: 'local-hash' })
          .returning();
        await database.db.insert(entityDocuments).values({ tenantId, entityId: row.id, documentId });
        return row.id;
      };
      const description = 'The Bolhao market sells fresh sardines';
      const [fact] = await database.db
        .insert(edges)
        .values({
          tenantId, graphId, sourceId: await named('Bolhao market'), targetId: await named('Porto'), relation: 'sells', description,
          keywords: 'sells', embedding: embed(description), embeddingModel: 'local-hash', artifactId: documentId,
        })
        .returning();
      await database.db.insert(edgeDocuments).values({ tenantId, edgeId: fact.id, documentId });
      await database.db.insert(edgeChunks).values({ tenantId, edgeId: fact.id, chunkId: scope.sardines });
      return fact.id;
    }

    const request = (scope: { tenantId: string; graphId: number }, mode: RetrievalMode, questionText: string, vectorOf: string) => ({
      ...scope,
      mode,
      questionText,
      questionVector: embed(vectorOf),
      highLevelVector: embed(vectorOf),
      highLevelKeywords: [],
      budgets: ROOMY,
    });

    it('are not searched when the words find passages (no HNSW scan), and the passages still lead', async () => {
      const scope = await graphWithPassages();
      const context = await retrieval.retrieve(request(scope, 'naive', 'Which market sells fresh sardines?', 'Which market sells fresh sardines?'));
      expect(context.chunks[0].chunkId).toBe(scope.sardines);
      expect(Object.keys(context.timings)).toContain('lexical.chunks');
      expect(Object.keys(context.timings)).not.toContain('naive.chunks');
    });

    it('are searched, after the words, when the words find nothing', async () => {
      const scope = await graphWithPassages();
      // No lexeme of the question is in the graph; its vector is near the sardines passage.
      const context = await retrieval.retrieve(request(scope, 'naive', 'zyxwv qqqq', 'Porto market fresh sardines'));
      expect(Object.keys(context.timings)).toContain('naive.chunks');
      expect(context.chunks[0].chunkId).toBe(scope.sardines);
    });

    it('the facts nearest the keywords are not searched when a fact of the best passages matches by its words', async () => {
      const scope = await graphWithPassages();
      const fact = await sardinesFact(scope);
      const context = await retrieval.retrieve(request(scope, 'global', 'fresh sardines', 'fresh sardines'));
      expect(context.relations.map((r) => r.id)).toEqual([fact]);
      expect(Object.keys(context.timings)).toContain('global.lexical');
      expect(Object.keys(context.timings)).not.toContain('global.edges');
    });

    it('the facts nearest the keywords are searched when no fact matches by its words', async () => {
      const scope = await graphWithPassages();
      // The passage is found by its words, but the graph states no fact: the edge vector list runs.
      const context = await retrieval.retrieve(request(scope, 'global', 'fresh sardines', 'fresh sardines'));
      expect(Object.keys(context.timings)).toContain('global.lexical');
      expect(Object.keys(context.timings)).toContain('global.edges');
    });

    it("mix searches the chunks nearest the question beside the words (one vote of four in its fusion)", async () => {
      const scope = await graphWithPassages();
      const context = await retrieval.retrieve(request(scope, 'mix', 'Which market sells fresh sardines?', 'Which market sells fresh sardines?'));
      expect(Object.keys(context.timings)).toContain('naive.chunks');
      expect(context.chunks[0].chunkId).toBe(scope.sardines);
    });

    it("are always searched with a provider model's weights", async () => {
      const scope = await graphWithPassages();
      const context = await retrieval.retrieve({
        ...request(scope, 'naive', 'Which market sells fresh sardines?', 'Which market sells fresh sardines?'),
        weights: MODEL_EMBEDDER_WEIGHTS,
      });
      expect(Object.keys(context.timings)).toContain('naive.chunks');
      expect(context.chunks[0].chunkId).toBe(scope.sardines);
    });
  });

  describe("facts' stored lexemes (migration 0014)", () => {
    const lexemesOf = async (scope: Seeded, edgeId: number) => {
      const rows = await queryRows<{ lexemes: string | null }>(
        database.db,
        sql`SELECT lexemes::text AS lexemes FROM edges WHERE tenant_id = ${scope.tenantId} AND id = ${edgeId}`,
      );
      return rows[0].lexemes;
    };
    const factScores = async (scope: Seeded, question: string) =>
      (await new RetrievalRepository(database).searchEdgesLexically(scope, question, [scope.chunk.alice, scope.chunk.bob], 10)).map(
        (e) => [e.id, e.score],
      );

    it('are written with the fact and rewritten with its words; a fact without them ranks the same', async () => {
      const scope = await seedGraph();
      const stored = await lexemesOf(scope, scope.edge.worksAtGlobex);
      expect(stored).toEqual(expect.stringContaining("'chief'"));
      expect(stored).toEqual(expect.stringContaining("'engin'"));
      const question = 'Which chief engineer works at Globex?';
      const withLexemes = await factScores(scope, question);
      expect(withLexemes[0]).toEqual([scope.edge.worksAtGlobex, expect.any(Number)]);

      // Facts written before the migration have none: ranked from their words, the same.
      await database.db.execute(sql`UPDATE edges SET lexemes = NULL WHERE tenant_id = ${scope.tenantId}`);
      expect(await lexemesOf(scope, scope.edge.worksAtGlobex)).toBeNull();
      expect(await factScores(scope, question)).toEqual(withLexemes);

      // A merged description is stemmed again.
      await database.db.execute(
        sql`UPDATE edges SET description = 'Alice Martin works at Globex as principal architect' WHERE tenant_id = ${scope.tenantId} AND id = ${scope.edge.worksAtGlobex}`,
      );
      expect(await lexemesOf(scope, scope.edge.worksAtGlobex)).toEqual(expect.stringContaining("'architect'"));
      expect((await factScores(scope, 'principal architect'))[0]).toEqual([scope.edge.worksAtGlobex, expect.any(Number)]);
    });
  });

  describe("BM25's remembered document frequencies (record 0081)", () => {
    const CHUNKS = 250; // past REMEMBER_CORPUS_FROM_CHUNKS: a graph large enough to be remembered
    const addChunks = async (scope: { tenantId: string; graphId: number }, from: number, count: number, words: string) => {
      const document = await processedDocument(scope.tenantId, scope.graphId, `bulk ${from}.txt`);
      await database.db.execute(sql`INSERT INTO chunks (tenant_id, graph_id, document_id, index, text, token_count, term_count)
        SELECT ${scope.tenantId}::uuid, ${scope.graphId}::bigint, ${document.id}::bigint, g.i, ${words}::text || ' ' || g.i, 8, 4
        FROM generate_series(${from}::integer, ${from + count - 1}::integer) AS g(i)`);
      await database.db.execute(sql`INSERT INTO chunk_terms (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
        SELECT c.tenant_id, c.graph_id, t.lexeme, c.id, coalesce(array_length(t.positions, 1), 1), 4
        FROM chunks c CROSS JOIN LATERAL unnest(to_tsvector('english', c.text)) AS t
        WHERE c.tenant_id = ${scope.tenantId} AND c.document_id = ${document.id}`);
    };
    const scored = (hits: Array<{ chunkId: number; lexicalScore?: number }>) => hits.map((h) => [h.chunkId, h.lexicalScore]);

    it('gives the ranking counting gives, then keeps a large graph\'s frequencies for a while (a new posting moves nothing yet)', async () => {
      const scope = await createGraph();
      // 'alpha' is in every chunk, 'quebec' in one in ten.
      await addChunks(scope, 0, CHUNKS, 'alpha bravo');
      await database.db.execute(sql`UPDATE chunks SET text = text || ' quebec' WHERE tenant_id = ${scope.tenantId} AND graph_id = ${scope.graphId} AND index % 10 = 0`);
      await database.db.execute(sql`INSERT INTO chunk_terms (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
        SELECT tenant_id, graph_id, 'quebec', id, 1, 4 FROM chunks WHERE tenant_id = ${scope.tenantId} AND graph_id = ${scope.graphId} AND index % 10 = 0`);
      const question = 'Which alpha quebec chunk?';
      const remembering = new RetrievalRepository(database);
      // The first question counts everything and learns the corpus; the second is given what was learned.
      const counted = scored(await remembering.searchChunksLexically(scope, question, 10));
      expect(counted).toHaveLength(10);
      expect(scored(await remembering.searchChunksLexically(scope, question, 10))).toEqual(counted);
      expect(scored(await new RetrievalRepository(database).searchChunksLexically(scope, question, 10))).toEqual(counted);

      // 'quebec' in 100 more chunks: counted afresh its IDF drops, so every score moves; remembered, none does.
      await addChunks(scope, CHUNKS, 100, 'quebec zulu');
      const recounted = scored(await new RetrievalRepository(database).searchChunksLexically(scope, question, 10));
      expect(recounted).not.toEqual(counted);
      const remembered = scored(await remembering.searchChunksLexically(scope, question, 10));
      const before = new Map(counted.map(([id, score]) => [id, score]));
      for (const [id, score] of remembered) if (before.has(id)) expect(score).toBeCloseTo(before.get(id)!, 12);
    });
  });

  (onPostgres ? describe : describe.skip)('HNSW index use (PostgreSQL, a few thousand rows)', () => {
    const BIG_GRAPH_ROWS = 5000;
    const explain = async (statement: ReturnType<typeof sql>) =>
      searchTransaction(database.db, async (tx) => {
        const rows = await queryRows<Record<string, string>>(tx, sql`EXPLAIN (ANALYZE) ${statement}`);
        return rows.map((row) => Object.values(row)[0].replace(/'\[[^\]]*\]'::halfvec/g, "'[…]'::halfvec")).join('\n');
      });
    let big: { tenantId: string; graphId: number };
    let small: { tenantId: string; graphId: number };

    beforeAll(async () => {
      // One large graph among smaller ones. For a graph of a few hundred rows the planner rightly
      // reads its rows by tenant and sorts them exactly (cheaper, and exact); the index pays off,
      // and is chosen, once a graph holds some thousands (see libs/retrieval/README.md).
      const scopes = [];
      for (let i = 0; i < 4; i++) scopes.push(await createGraph());
      [big, small] = scopes;
      // Bulk load: building an HNSW index once is ~5x faster than inserting into it row by row,
      // so the four searched indexes are dropped and re-created from their own definitions.
      const indexes = await queryRows<{ indexdef: string; indexname: string }>(
        database.db,
        sql`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
             AND indexname IN ('chunks_embedding_hnsw', 'chunks_summary_embedding_hnsw', 'entities_embedding_hnsw', 'edges_embedding_hnsw')`,
      );
      expect(indexes).toHaveLength(4);
      for (const { indexname } of indexes) await database.db.execute(sql.raw(`DROP INDEX ${indexname}`));
      // The plans below are the explicit ANALYZE's: an autovacuum of these tables (this file's
      // own database) landing between it and the EXPLAIN would change the statistics under them.
      for (const table of ['entities', 'edges', 'chunks']) await database.db.execute(sql.raw(`ALTER TABLE ${table} SET (autovacuum_enabled = off)`));
      await seedRandomRows(database, big, BIG_GRAPH_ROWS);
      for (const scope of scopes.slice(1)) await seedRandomRows(database, scope, 300);
      for (const { indexdef } of indexes) await database.db.execute(sql.raw(indexdef));
      await database.db.execute(sql`ANALYZE`);
    }, 300_000);

    it.each([
      ['entities', 'entities_embedding_hnsw', entitySearchSql],
      ['edges', 'edges_embedding_hnsw', edgeSearchSql],
      ['chunks', 'chunks_embedding_hnsw', chunkSearchSql],
    ] as const)('the %s search is planned on %s', async (table, index, build) => {
      const plan = await explain(build(big, randomVector(), 20));
      if (!plan.includes(`Index Scan using ${index}`)) {
        // Evidence for a plan that went the other way: what the planner read about the table.
        console.warn(JSON.stringify(await queryRows(database.db, sql`SELECT c.reltuples, c.relpages, s.last_analyze, s.last_autoanalyze, s.last_autovacuum, s.n_mod_since_analyze
            FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = ${table}`)));
      }
      if (process.env.LOCI_PRINT_PLANS) console.log(`${table} (large graph)\n${plan}\n\n${table} (small graph)\n${await explain(build(small, randomVector(), 20))}`);
      expect(plan).toContain(`Index Scan using ${index}`);
      if (index === 'chunks_embedding_hnsw') expect(plan).toContain('Index Scan using chunks_summary_embedding_hnsw');
      expect(plan).not.toMatch(/Seq Scan on (entities|edges|chunks)\b/);
    });

    it("reads a hub's edges newest first through the live index and stops after the few it keeps", async () => {
      const hubEdges = 500;
      const [hub] = await queryRows<{ id: string }>(
        database.db,
        sql`SELECT id FROM entities WHERE tenant_id = ${big.tenantId} AND graph_id = ${big.graphId} ORDER BY id LIMIT 1`,
      );
      await database.db.execute(sql`INSERT INTO edges (tenant_id, graph_id, source_id, target_id, relation, created_at)
        SELECT ${big.tenantId}, ${big.graphId}, ${hub.id}, e.id, 'hub_of', now() - make_interval(secs => e.id)
        FROM entities e WHERE e.tenant_id = ${big.tenantId} AND e.graph_id = ${big.graphId} AND e.id <> ${hub.id}
        ORDER BY e.id LIMIT ${hubEdges}`);
      await database.db.execute(sql`INSERT INTO edge_documents (tenant_id, edge_id, document_id)
        SELECT x.tenant_id, x.id, (SELECT min(id) FROM documents WHERE tenant_id = ${big.tenantId} AND graph_id = ${big.graphId})
        FROM edges x WHERE x.tenant_id = ${big.tenantId} AND x.source_id = ${hub.id} AND x.relation = 'hub_of'`);
      await database.db.execute(sql`ANALYZE edges`);
      const plan = await explain(edgesAroundSql(big, [Number(hub.id)], 40));
      if (process.env.LOCI_PRINT_PLANS) console.log(`expansion of a hub with ${hubEdges} edges\n${plan}`);
      const scan = /Index Scan Backward using edges_live_source_idx on edges \S+ .*\(actual time=\S+ rows=(\d+) loops=1\)/.exec(plan);
      expect(scan).not.toBeNull();
      // Rows the hub's scan returned: the few newest it keeps, not its 500 edges.
      expect(Number(scan![1])).toBeLessThanOrEqual(EXPANSION_EDGES_PER_DIRECTION);
      expect(plan).not.toMatch(/Bitmap Heap Scan on edges|Seq Scan on edges/);
    });

    it('runs its exact statements prepared by name, on generic plans, with the rows a plan made each time gives (record 0080)', async () => {
      // One connection each, so pg_prepared_statements (a session's own) shows what ran on it.
      const url = withSessionSettings(environment.settings.database.url!);
      const named = PostgresDatabase.connect(url, 1);
      // A session URL marks the pool as behind a transaction pooler: nothing is named there.
      const unnamed = PostgresDatabase.connect(url, 1, 0, url);
      try {
        // The random rows' words indexed, so BM25 finds passages and the facts they state are ranked.
        for (const scope of [small, big]) {
          await database.db.execute(sql`INSERT INTO chunk_terms (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
            SELECT c.tenant_id, c.graph_id, t.lexeme, c.id, coalesce(array_length(t.positions, 1), 1), 3
            FROM chunks c CROSS JOIN LATERAL unnest(to_tsvector('english', c.text)) AS t
            WHERE c.tenant_id = ${scope.tenantId} AND c.graph_id = ${scope.graphId} ON CONFLICT DO NOTHING`);
          await database.db.execute(sql`UPDATE chunks SET term_count = 3 WHERE tenant_id = ${scope.tenantId} AND graph_id = ${scope.graphId}`);
        }
        const prepared = new RetrievalService(named);
        const planned = new RetrievalService(unnamed);
        const vector = randomVector();
        // Words and names the random rows hold, so BM25, the named entities and the walk all run.
        const question = 'Which bulk chunk 17 mentions bulk entity 42 and bulk entity 7?';
        const requestFor = (scope: { tenantId: string; graphId: number }, mode: RetrievalMode): RetrievalRequest => ({
          ...scope, mode, questionText: question, highLevelKeywords: ['bulk entity'],
          questionVector: vector, lowLevelVector: vector, highLevelVector: vector, budgets: ROOMY,
        });
        // The small graph first: the plans PostgreSQL settles on after five executions come from
        // it, and the large graph must still get the rows planning each statement gives.
        for (const scope of [small, big]) {
          for (const mode of MODES) {
            const expected = ids(await planned.retrieve(requestFor(scope, mode)));
            for (let run = 0; run < 7; run++) expect(ids(await prepared.retrieve(requestFor(scope, mode)))).toEqual(expected);
          }
        }
        const statements = await queryRows<{ name: string; statement: string; generic_plans: string }>(
          named.db,
          sql`SELECT name, statement, generic_plans FROM pg_prepared_statements WHERE name LIKE 'loci\_%'`,
        );
        const labels = new Set(statements.map((s) => s.name.replace(/^loci_|_\d+$/g, '')));
        for (const label of ['passages', 'walk', 'edges_around', 'fact_words', 'supporting_chunks']) expect(labels).toContain(label);
        expect(statements.some((s) => Number(s.generic_plans) > 0)).toBe(true);
        // An approximate (HNSW) search is never named: a generic plan would pick one way for all tenants.
        expect(statements.filter((s) => s.statement.includes('<=>'))).toEqual([]);
        expect(await queryRows(unnamed.db, sql`SELECT name FROM pg_prepared_statements`)).toEqual([]);
      } finally {
        await named.close();
        await unnamed.close();
      }
    });

    it('returns k rows of the graph in every mode, quickly', async () => {
      const vector = randomVector();
      const request = { ...big, questionVector: vector, lowLevelVector: vector, highLevelVector: vector };
      for (const mode of MODES) {
        const context = await retrieval.retrieve({ ...request, mode, budgets: ROOMY });
        if (process.env.LOCI_PRINT_PLANS) console.log(mode, JSON.stringify(context.timings));
        const smallContext = await retrieval.retrieve({ ...request, ...small, mode, budgets: ROOMY });
        if (process.env.LOCI_PRINT_PLANS) console.log(`${mode} (small graph)`, JSON.stringify(smallContext.timings));
        if (mode !== 'global') expect(context.chunks.length).toBeGreaterThanOrEqual(20);
        if (mode !== 'naive') expect(context.relations.length).toBeGreaterThanOrEqual(20);
      }
    });
  });
});

function randomVector(): number[] {
  return Array.from({ length: 1024 }, () => Math.random() - 0.5);
}

/** `n` processed chunks, entities and edges with random vectors, built in SQL (fast). */
async function seedRandomRows(database: Database, { tenantId, graphId }: { tenantId: string; graphId: number }, n: number) {
  // Correlated with the outer row (g.i), so each row gets its own vector.
  const randomVectorSql = sql.raw(`(SELECT array_agg(random() - 0.5 + 0 * s.j)::halfvec FROM generate_series(1, 1024) s(j) WHERE g.i IS NOT NULL)`);
  const run = (statement: ReturnType<typeof sql>) => database.db.execute(statement);
  await run(sql`INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text, status)
    SELECT ${tenantId}, ${graphId}, 'document', 'bulk ' || g.i, md5(random()::text), 'bulk', 'processed'
    FROM generate_series(1, 10) AS g(i)`);
  await run(sql`INSERT INTO chunks (tenant_id, graph_id, document_id, index, text, token_count, embedding, summary_embedding)
    SELECT ${tenantId}, ${graphId}, d.id, g.i, 'bulk chunk ' || g.i, 3, ${randomVectorSql}, ${randomVectorSql}
    FROM generate_series(1, ${n}) AS g(i)
    JOIN LATERAL (SELECT id FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} ORDER BY id OFFSET (g.i % 10) LIMIT 1) d ON true`);
  await run(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name, embedding)
    SELECT ${tenantId}, ${graphId}, 'bulk entity ' || g.i, 'bulk entity ' || g.i, ${randomVectorSql} FROM generate_series(1, ${n}) AS g(i)`);
  await run(sql`INSERT INTO entity_documents (tenant_id, entity_id, document_id)
    SELECT e.tenant_id, e.id, (SELECT min(id) FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graphId})
    FROM entities e WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId}`);
  await run(sql`INSERT INTO entity_chunks (tenant_id, entity_id, chunk_id)
    SELECT e.tenant_id, e.id, c.id FROM entities e
    JOIN chunks c ON c.tenant_id = e.tenant_id AND c.graph_id = e.graph_id AND c.index = e.id % ${n} + 1
    WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId}`);
  await run(sql`WITH numbered AS (
      SELECT id, row_number() OVER (ORDER BY id) AS i FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graphId})
    INSERT INTO edges (tenant_id, graph_id, source_id, target_id, relation, embedding)
    SELECT ${tenantId}, ${graphId}, g.id, t.id, 'related_to', ${randomVectorSql}
    FROM numbered g JOIN numbered t ON t.i = (g.i * 7) % ${n} + 1 AND t.id <> g.id`);
  await run(sql`INSERT INTO edge_documents (tenant_id, edge_id, document_id)
    SELECT x.tenant_id, x.id, (SELECT min(id) FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graphId})
    FROM edges x WHERE x.tenant_id = ${tenantId} AND x.graph_id = ${graphId}`);
  await run(sql`INSERT INTO edge_chunks (tenant_id, edge_id, chunk_id)
    SELECT x.tenant_id, x.id, ec.chunk_id FROM edges x
    JOIN entity_chunks ec ON ec.tenant_id = x.tenant_id AND ec.entity_id = x.source_id
    WHERE x.tenant_id = ${tenantId} AND x.graph_id = ${graphId}`);
}
