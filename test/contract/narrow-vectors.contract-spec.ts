import { randomUUID } from 'node:crypto';
import { SQL, sql } from 'drizzle-orm';
import {
  Database,
  documents,
  findMigrationsFolder,
  GraphWritesRepository,
  graphs,
  nearestByNameExactSql,
  nearestByNameThroughIndexSql,
  openDatabase,
  queryRows,
  ReembedRepository,
  tenants,
} from '@loci/db';
import { countTokens } from '@loci/llm';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { chunkSearchSql, edgeSearchSql, entitySearchSql, RetrievalService } from '@loci/retrieval';
import { vectorSearchSql } from '../../libs/retrieval/src/gb/gb-query.queries';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * Vectors at the width their model needs (libs/db/src/vector-width.ts): a graph embedded at 256
 * dimensions is written to the 256-wide columns, found by every search through them, and moved
 * between widths by merges and re-embedding without a stale copy left in the other width. One
 * graph at each width, written by the real write path (GraphWritesRepository), on whichever
 * store the environment selects (DATABASE_URL → PostgreSQL, otherwise PGlite).
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const narrow = new LocalHashingEmbedder(256);
const wide = new LocalHashingEmbedder(1024);
const ROOMY = { entityTokens: 100_000, relationTokens: 100_000, chunkTokens: 100_000 };

const CHUNKS = [
  'Alice Martin joined Globex in July 2023 as chief engineer. Before that she worked at Acme Corporation.',
  'Bob Stone lived in Lisbon from 2015 until 2021, when he moved to Berlin.',
  'Stall 12 of the Bolhao market in Porto sells fresh sardines, cork crafts and green wine.',
];
const ENTITIES: Array<[name: string, description: string, chunk: number]> = [
  ['Alice Martin', 'Chief engineer at Globex', 0],
  ['Globex', 'Engineering company', 0],
  ['Bob Stone', 'Lived in Lisbon, now in Berlin', 1],
  ['Lisbon', 'Capital of Portugal', 1],
  ['Bolhao market', 'Market in Porto selling sardines', 2],
];
const FACTS: Array<[source: number, relation: string, target: number, description: string]> = [
  [0, 'works_at', 1, 'Alice Martin works at Globex as chief engineer'],
  [2, 'lives_in', 3, 'Bob Stone lived in Lisbon'],
];

interface Written {
  tenantId: string;
  graphId: number;
  embedder: LocalHashingEmbedder;
  chunkIds: number[];
  entityIds: number[];
  edgeIds: number[];
}

describe(`vectors at their model's width (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;
  const writes = new GraphWritesRepository();
  let narrowGraph: Written;
  let wideGraph: Written;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
    narrowGraph = await writeGraph(narrow);
    wideGraph = await writeGraph(wide);
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  async function writeGraph(embedder: LocalHashingEmbedder): Promise<Written> {
    const embed = (text: string) => embedder.embedText(text);
    const [tenant] = await database.db.insert(tenants).values({ name: `width ${randomUUID()}` }).returning();
    const tenantId = tenant.id;
    const [graph] = await database.db.insert(graphs).values({ tenantId, kind: 'default', name: 'default' }).returning();
    const graphId = graph.id;
    const [doc] = await database.db
      .insert(documents)
      .values({ tenantId, graphId, kind: 'document', name: 'people.txt', contentHash: randomUUID(), text: CHUNKS.join('\n'), status: 'processed' })
      .returning();
    const model = `local:${embedder.model}`;
    return database.db.transaction(async (tx) => {
      const chunkIds: number[] = [];
      for (const [index, text] of CHUNKS.entries()) {
        const row = await writes.insertChunk(
          tx,
          { tenantId, graphId, documentId: doc.id, index, text, tokenCount: countTokens(text), summary: text.slice(0, 60), embedding: embed(text), summaryEmbedding: embed(text.slice(0, 60)), embeddingModel: model },
          text,
        );
        chunkIds.push(row.id);
      }
      const inserted = await writes.insertEntities(
        tx,
        ENTITIES.map(([name, description]) => ({
          tenantId, graphId, name, normalizedName: name.toLowerCase(), type: 'thing', description,
          embedding: embed(`${name}: ${description}`), nameEmbedding: embed(name), embeddingModel: model,
        })),
      );
      const entityIds = inserted.map((row) => row.id);
      const facts = await writes.insertEdges(
        tx,
        FACTS.map(([source, relation, target, description]) => ({
          tenantId, graphId, sourceId: entityIds[source], targetId: entityIds[target], relation, description,
          keywords: relation.replace(/_/g, ' '),
          embedding: embed(`${ENTITIES[source][0]} ${relation.replace(/_/g, ' ')} ${ENTITIES[target][0]}. ${description}`),
          embeddingModel: model, artifactId: doc.id,
        })),
      );
      const edgeIds = facts.map((row) => row.id);
      for (const [i, chunkId] of chunkIds.entries()) {
        await writes.addProvenance(tx, tenantId, {
          documentId: doc.id,
          chunkId,
          entityIds: ENTITIES.flatMap(([, , chunk], e) => (chunk === i ? [entityIds[e]] : [])),
          edgeIds: FACTS.flatMap(([source], f) => (ENTITIES[source][2] === i ? [edgeIds[f]] : [])),
        });
      }
      return { tenantId, graphId, embedder, chunkIds, entityIds, edgeIds };
    });
  }

  /** For each vector column of `table` in the graph: how many rows hold a vector in it. */
  async function filled(graph: Written, table: 'chunks' | 'entities' | 'edges'): Promise<Record<string, number>> {
    const columns = {
      chunks: ['embedding', 'embedding_256', 'summary_embedding', 'summary_embedding_256'],
      entities: ['embedding', 'embedding_256', 'name_embedding', 'name_embedding_256'],
      edges: ['embedding', 'embedding_256'],
    }[table];
    const [row] = await queryRows<Record<string, string | number>>(
      database.db,
      sql.raw(
        `SELECT ${columns.map((c) => `count(${c})::int AS ${c}`).join(', ')} FROM ${table}
         WHERE tenant_id = '${graph.tenantId}' AND graph_id = ${graph.graphId}`,
      ),
    );
    return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
  }

  it('writes a 256-wide graph to the 256-wide columns and a 1024-wide one to the 1024-wide columns, never both', async () => {
    expect(await filled(narrowGraph, 'chunks')).toEqual({ embedding: 0, embedding_256: 3, summary_embedding: 0, summary_embedding_256: 3 });
    expect(await filled(narrowGraph, 'entities')).toEqual({ embedding: 0, embedding_256: 5, name_embedding: 0, name_embedding_256: 5 });
    expect(await filled(narrowGraph, 'edges')).toEqual({ embedding: 0, embedding_256: 2 });
    expect(await filled(wideGraph, 'chunks')).toEqual({ embedding: 3, embedding_256: 0, summary_embedding: 3, summary_embedding_256: 0 });
    expect(await filled(wideGraph, 'entities')).toEqual({ embedding: 5, embedding_256: 0, name_embedding: 5, name_embedding_256: 0 });
    expect(await filled(wideGraph, 'edges')).toEqual({ embedding: 2, embedding_256: 0 });
  });

  it.each(['narrow', 'wide'] as const)('retrieves the same evidence from the %s graph in every mode', async (which) => {
    const graph = which === 'narrow' ? narrowGraph : wideGraph;
    const retrieval = new RetrievalService(database);
    const ask = (mode: 'local' | 'global' | 'naive' | 'mix', question: string) => {
      const vector = graph.embedder.embedText(question);
      return retrieval.retrieve({
        tenantId: graph.tenantId, graphId: graph.graphId, mode, embeddingModel: `local:${graph.embedder.model}`,
        questionVector: vector, lowLevelVector: vector, highLevelVector: vector, budgets: ROOMY,
      });
    };
    expect((await ask('local', 'Alice Martin')).entities[0].id).toBe(graph.entityIds[0]);
    expect((await ask('global', 'Alice Martin works at Globex')).relations[0].id).toBe(graph.edgeIds[0]);
    expect((await ask('naive', 'Which market in Porto sells fresh sardines?')).chunks[0].chunkId).toBe(graph.chunkIds[2]);
    const mix = await ask('mix', 'Where did Bob Stone live?');
    expect(mix.chunks.map((c) => c.chunkId)).toContain(graph.chunkIds[1]);
  });

  it("searches each of gb's four vector indexes at the graph's width", async () => {
    const scope = { tenantId: narrowGraph.tenantId, graphId: narrowGraph.graphId };
    const nearest = async (index: 'entities' | 'edges' | 'chunks' | 'summaries', text: string) =>
      (await queryRows<{ id: string }>(database.db, vectorSearchSql(scope, index, narrow.embedText(text), 1, 0)))[0]?.id;
    expect(Number(await nearest('entities', 'Bob Stone'))).toBe(narrowGraph.entityIds[2]);
    expect(Number(await nearest('edges', 'Bob Stone lives in Lisbon'))).toBe(narrowGraph.edgeIds[1]);
    expect(Number(await nearest('chunks', 'fresh sardines in Porto'))).toBe(narrowGraph.chunkIds[2]);
    expect(Number(await nearest('summaries', 'Alice Martin joined Globex'))).toBe(narrowGraph.chunkIds[0]);
  });

  it.each([
    ['exactly', nearestByNameExactSql],
    ['through the index', nearestByNameThroughIndexSql],
  ] as const)('resolves names %s in the 256-wide name column', async (_how, build) => {
    const model = `local:${narrow.model}`;
    const rows = await database.db.transaction(async (tx) => {
      // The index form runs under the settings entity resolution gives it (no sort, iterative scan).
      await tx.execute(sql`SELECT set_config('enable_sort', 'off', true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
      return queryRows<{ i: number; id: string; similarity: number }>(
        tx,
        build(narrowGraph.tenantId, narrowGraph.graphId, [narrow.embedText('Alice Martin'), narrow.embedText('Lisbon')], model),
      );
    });
    const byName = new Map(rows.map((row) => [Number(row.i), row]));
    expect(Number(byName.get(0)?.id)).toBe(narrowGraph.entityIds[0]);
    expect(Number(byName.get(1)?.id)).toBe(narrowGraph.entityIds[3]);
    expect(Number(byName.get(0)?.similarity)).toBeCloseTo(1, 2);
  });

  it('refuses to compare names of two widths in one statement', () => {
    expect(() => nearestByNameExactSql(narrowGraph.tenantId, narrowGraph.graphId, [narrow.embedText('a'), wide.embedText('a')])).toThrow(RangeError);
  });

  it('plans each search on the 256-wide HNSW indexes when the planner must use an index', async () => {
    const scope = { tenantId: narrowGraph.tenantId, graphId: narrowGraph.graphId };
    const vector = narrow.embedText('Alice Martin');
    const plan = (statement: SQL) =>
      database.db.transaction(async (tx) => {
        // Three rows are cheaper to sort than to search: forbid the alternatives so the plan
        // shows which index the statement's ORDER BY can use.
        await tx.execute(sql`SET LOCAL enable_seqscan = off`);
        await tx.execute(sql`SET LOCAL enable_sort = off`);
        await tx.execute(sql`SET LOCAL enable_bitmapscan = off`);
        const rows = await queryRows<Record<string, string>>(tx, sql`EXPLAIN ${statement}`);
        return rows.map((row) => Object.values(row)[0]).join('\n');
      });
    expect(await plan(entitySearchSql(scope, vector, 5))).toContain('Index Scan using entities_embedding_256_hnsw');
    expect(await plan(edgeSearchSql(scope, vector, 5))).toContain('Index Scan using edges_embedding_256_hnsw');
    const chunkPlan = await plan(chunkSearchSql(scope, vector, 5));
    expect(chunkPlan).toContain('Index Scan using chunks_embedding_256_hnsw');
    expect(chunkPlan).toContain('Index Scan using chunks_summary_embedding_256_hnsw');
  });

  it("a merge's new vector replaces the row's in its own width and clears the other", async () => {
    const graph = await writeGraph(wide);
    const [alice] = graph.entityIds;
    const vectorsOf = async () =>
      (
        await queryRows<{ wide: boolean; narrow: boolean; name_wide: boolean }>(
          database.db,
          sql`SELECT embedding IS NOT NULL AS wide, embedding_256 IS NOT NULL AS narrow, name_embedding IS NOT NULL AS name_wide
              FROM entities WHERE tenant_id = ${graph.tenantId} AND id = ${alice}`,
        )
      )[0];
    // A description merged without a new vector keeps the row's vectors.
    await writes.updateEntities(database.db, graph.tenantId, [{ id: alice, description: 'Chief engineer at Globex, Lisbon office', type: 'person' }]);
    expect(await vectorsOf()).toEqual({ wide: true, narrow: false, name_wide: true });
    await writes.updateEntities(database.db, graph.tenantId, [
      { id: alice, description: 'Chief engineer', type: 'person', embedding: narrow.embedText('Alice Martin: Chief engineer') },
    ]);
    expect(await vectorsOf()).toEqual({ wide: false, narrow: true, name_wide: true });
  });

  it('re-embedding moves every vector to the new width and leaves none in the old one', async () => {
    const graph = await writeGraph(wide);
    const rows = new ReembedRepository();
    const model = `local:${narrow.model}`;
    const key = (id: number) => ({ tenantId: graph.tenantId, id });
    await rows.setChunkVectors(database.db, model, graph.chunkIds.map((id, i) => ({ ...key(id), embedding: narrow.embedText(CHUNKS[i]), summaryEmbedding: null })));
    await rows.setEntityVectors(
      database.db,
      model,
      graph.entityIds.map((id, i) => ({ ...key(id), embedding: narrow.embedText(ENTITIES[i][1]), nameEmbedding: narrow.embedText(ENTITIES[i][0]) })),
    );
    await rows.setEdgeVectors(database.db, model, graph.edgeIds.map((id, i) => ({ ...key(id), embedding: narrow.embedText(FACTS[i][3]) })));
    expect(await filled(graph, 'chunks')).toEqual({ embedding: 0, embedding_256: 3, summary_embedding: 0, summary_embedding_256: 0 });
    expect(await filled(graph, 'entities')).toEqual({ embedding: 0, embedding_256: 5, name_embedding: 0, name_embedding_256: 5 });
    expect(await filled(graph, 'edges')).toEqual({ embedding: 0, embedding_256: 2 });
  });
});
