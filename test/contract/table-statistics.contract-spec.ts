import { sql, SQL } from 'drizzle-orm';
import { Database, DATABASE, GraphsRepository, queryRows, TableStatisticsKeeper } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import {
  chunkSearchSql,
  edgeSearchSql,
  edgesAroundSql,
  entitySearchSql,
  Scope,
  searchTransaction,
  supportingChunksSql,
} from '@loci/retrieval';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A freshly ingested tenant's questions are planned on the intended indexes: ingestion keeps
 * the planner's statistics current itself (PGlite never runs autovacuum; a PostgreSQL whose
 * autovacuum is off or behind leaves a new tenant's tables unanalyzed). Documents go through
 * the real pipeline (queue, chunking, local extraction, graph writes); the plans are read with
 * EXPLAIN, nothing is timed.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const DOCUMENTS = Number(process.env.LOCI_STATS_DOCUMENTS ?? 300);
const embedder = new LocalHashingEmbedder();

const FIRST = ['Alice', 'Bruno', 'Chiara', 'Dmitri', 'Elena', 'Farid', 'Greta', 'Hiro', 'Ingrid', 'Jonas', 'Keiko', 'Luca', 'Marta', 'Nils', 'Olga', 'Pavel', 'Quinn', 'Rosa', 'Sven', 'Tariq'];
const LAST = ['Almeida', 'Berger', 'Costa', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Hansen', 'Ivanova', 'Jensen', 'Kowalski', 'Larsen', 'Moreau', 'Novak', 'Olsen', 'Petrov', 'Rossi', 'Schmidt', 'Tanaka', 'Weber'];
const ORGS = ['Acme Corporation', 'Globex Corporation', 'Initech', 'Umbrella Corporation', 'Stark Industries', 'Wayne Enterprises', 'Hooli', 'Vandelay Industries', 'Cyberdyne Systems', 'Tyrell Corporation', 'Soylent Corporation', 'Wonka Industries'];
const CITIES = ['Lisbon', 'Porto', 'Berlin', 'Paris', 'Madrid', 'Rome', 'Vienna', 'Prague', 'Oslo', 'Dublin', 'Warsaw', 'Athens', 'Zurich', 'Helsinki', 'Amsterdam', 'Brussels'];

/** A short document naming a few people, an organization and places: several entities and facts each. */
function documentText(i: number): string {
  const person = (j: number) => `${FIRST[j % FIRST.length]} ${LAST[Math.floor(j / FIRST.length) % LAST.length]}`;
  const a = person(i);
  const b = person(i * 7 + 3);
  const org = ORGS[i % ORGS.length];
  const city = CITIES[i % CITIES.length];
  const other = CITIES[(i * 5 + 1) % CITIES.length];
  return (
    `${a} works at ${org} in ${city}. ${a} met ${b} in ${other} in ${2000 + (i % 24)}. ` +
    `${b} lives in ${other} and founded a studio called ${LAST[i % LAST.length]} Works. ` +
    `Report ${i}: ${org} opened an office in ${other}.`
  );
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every (node type, index or table) of a plan tree. */
function planNodes(node: PlanNode): string[] {
  const own = `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}`;
  return [own, ...(node.Plans ?? []).flatMap(planNodes)];
}

describe(`planner statistics of a freshly ingested tenant (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let database: Database;
  let scope: Scope;
  let entityIds: number[];
  let edgeIds: number[];

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_WORKER_CONCURRENCY: '2' });
    database = t.app.get<Database>(DATABASE);
    const tenant = await createTenant(t.app);
    const documents = t.app.get(DocumentsService);
    for (let i = 0; i < DOCUMENTS; i++) {
      await documents.submit(tenant.id, { name: `report-${i}.txt`, text: documentText(i), mimeType: 'text/plain' });
    }
    await t.app.get(IngestWorker).drain();
    await t.app.get(TableStatisticsKeeper).settled();
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenant.id);
    scope = { tenantId: tenant.id, graphId: graph.id };
    const counts = await queryRows<{ chunks: number; entities: number; edges: number }>(
      database.db,
      sql`SELECT (SELECT count(*)::int FROM chunks WHERE tenant_id = ${tenant.id}) AS chunks,
                 (SELECT count(*)::int FROM entities WHERE tenant_id = ${tenant.id}) AS entities,
                 (SELECT count(*)::int FROM edges WHERE tenant_id = ${tenant.id}) AS edges`,
    );
    if (process.env.LOCI_PRINT_PLANS) console.log(JSON.stringify(counts[0]));
    entityIds = (await queryRows<{ id: string }>(database.db, sql`SELECT id FROM entities WHERE tenant_id = ${tenant.id} ORDER BY id LIMIT 20`)).map((r) => Number(r.id));
    edgeIds = (await queryRows<{ id: string }>(database.db, sql`SELECT id FROM edges WHERE tenant_id = ${tenant.id} ORDER BY id LIMIT 20`)).map((r) => Number(r.id));
  }, 900_000);
  afterAll(() => t?.close());

  const planOf = async (statement: SQL): Promise<string[]> =>
    searchTransaction(database.db, async (tx) => {
      const [row] = await queryRows<Record<string, unknown>>(tx, sql`EXPLAIN (FORMAT JSON) ${statement}`);
      const json = Object.values(row)[0];
      const [explained] = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: PlanNode }>;
      return planNodes(explained.Plan);
    });

  const vector = () => embedder.embedText('Where does Alice Almeida work, and who did she meet in Porto?');
  const statements = (): Array<[string, SQL]> => [
    ['entity search', entitySearchSql(scope, vector(), 20)],
    ['edge search', edgeSearchSql(scope, vector(), 20)],
    ['chunk search', chunkSearchSql(scope, vector(), 20)],
    ['expansion', edgesAroundSql(scope, entityIds, 40)],
    ['supporting chunks', supportingChunksSql(scope, { entityIds, edgeIds, lead: 'entities', limit: 20 })],
  ];

  it('plans each vector search on its HNSW index', async () => {
    const [entity, edge, chunk] = statements();
    expect(await planOf(entity[1])).toContain('Index Scan using entities_embedding_hnsw on entities');
    expect(await planOf(edge[1])).toContain('Index Scan using edges_embedding_hnsw on edges');
    expect(await planOf(chunk[1])).toEqual(
      expect.arrayContaining(['Index Scan using chunks_embedding_hnsw on chunks', 'Index Scan using chunks_summary_embedding_hnsw on chunks']),
    );
  });

  it("probes a hit's visibility by the document's key, not by reading the graph's documents", async () => {
    const [entity, edge] = statements();
    for (const statement of [entity[1], edge[1]]) {
      const plan = await planOf(statement);
      expect(plan).toContain('Index Scan using documents_tenant_id_id_pk on documents');
      expect(plan).not.toContain('Index Scan using documents_graph_created_idx on documents');
    }
  });

  it("expands an entity through its own edges, never the graph's", async () => {
    const plan = await planOf(statements()[3][1]);
    expect(plan).toEqual(expect.arrayContaining([expect.stringMatching(/using edges_live_source_idx on edges$/), expect.stringMatching(/using edges_live_target_idx on edges$/)]));
    expect(plan.filter((node) => node.includes('edges_live_graph_idx'))).toEqual([]);
  });

  it('reads supporting chunks by key, not the whole graph', async () => {
    const plan = await planOf(statements()[4][1]);
    expect(plan).toContain('Index Scan using chunks_tenant_id_id_pk on chunks');
    expect(plan.filter((node) => node.includes('chunks_graph_idx'))).toEqual([]);
  });

  it('analyzed when changes passed the threshold, not on every write', async () => {
    const [row] = await queryRows<{ analyses: number }>(
      database.db,
      sql`SELECT (analyze_count + autoanalyze_count)::int AS analyses FROM pg_stat_user_tables WHERE relname = 'chunks'`,
    );
    if (process.env.LOCI_PRINT_PLANS) console.log(`chunks analyzed ${row.analyses} times for ${DOCUMENTS} documents`);
    expect(row.analyses).toBeGreaterThan(0);
    // Autovacuum's rule (50 + 10 % of the rows) asks for about 7 over 300 chunks; one per document would be 300.
    expect(row.analyses).toBeLessThan(DOCUMENTS / 10);
  });
});
