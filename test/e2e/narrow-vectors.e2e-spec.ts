import { sql } from 'drizzle-orm';
import { Database, DATABASE, GraphsRepository, queryRows } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { RetrievalService } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';

/**
 * The offline embedder at LOCI_LOCAL_EMBEDDING_DIM=256, through the real app and its HTTP API:
 * what ingestion and gb remember write goes to the 256-wide columns (`embedding_256`, …) with the
 * 1024-wide ones left null, rows record the model at that width, and /v1/query and /v1/gb/query
 * find the evidence, tenant by tenant (libs/db/src/vector-width.ts). On whichever store the
 * environment selects (DATABASE_URL → PostgreSQL, otherwise PGlite).
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const NARROW_MODEL = 'local:local-hash-v1-256d';
const WIDE_MODEL = 'local:local-hash-v1';
const OFFLINE = { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined };

const TEXT_A = 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris. Acme Corporation acquired Globex in 2019.';
const TEXT_B = 'Zed Zimmer works at Zircon Labs in Oslo. Yara Young lives in Bergen.';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
type Table = 'chunks' | 'entities' | 'edges';

/** The wide and narrow twin of each vector column (migrations/0019_narrow_vectors.sql). */
const VECTOR_COLUMNS: Record<Table, Array<[wide: string, narrow: string]>> = {
  chunks: [
    ['embedding', 'embedding_256'],
    ['summary_embedding', 'summary_embedding_256'],
  ],
  entities: [
    ['embedding', 'embedding_256'],
    ['name_embedding', 'name_embedding_256'],
  ],
  edges: [['embedding', 'embedding_256']],
};

/** Per vector column of `table`: how many of the tenant's rows hold a vector in it; and the row count. */
async function filled(t: TestApp, tenantId: string, table: Table): Promise<Record<string, number>> {
  const columns = VECTOR_COLUMNS[table].flat();
  const [row] = await queryRows<Record<string, string | number>>(
    t.app.get<Database>(DATABASE).db,
    sql`SELECT count(*)::int AS rows, ${sql.raw(columns.map((c) => `count(${c})::int AS ${c}`).join(', '))}
        FROM ${sql.raw(table)} WHERE tenant_id = ${tenantId}`,
  );
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

/** The distinct embedding models the tenant's rows of `table` record. */
async function modelsOf(t: TestApp, tenantId: string, table: Table): Promise<Array<string | null>> {
  const rows = await queryRows<{ model: string | null }>(
    t.app.get<Database>(DATABASE).db,
    sql`SELECT DISTINCT embedding_model AS model FROM ${sql.raw(table)} WHERE tenant_id = ${tenantId} ORDER BY 1`,
  );
  return rows.map((r) => r.model);
}

/** Stored widths of the tenant's non-null vectors in `column` of `table` (vector_dims). */
async function widthsOf(t: TestApp, tenantId: string, table: Table, column: string): Promise<number[]> {
  const rows = await queryRows<{ dims: number }>(
    t.app.get<Database>(DATABASE).db,
    sql`SELECT DISTINCT vector_dims(${sql.raw(column)})::int AS dims FROM ${sql.raw(table)}
        WHERE tenant_id = ${tenantId} AND ${sql.raw(column)} IS NOT NULL ORDER BY 1`,
  );
  return rows.map((r) => Number(r.dims));
}

async function ingest(t: TestApp, tenant: Tenant, name: string, text: string): Promise<string> {
  const created = await t.http.post('/v1/documents').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ name, text }).expect(202);
  await t.app.get(IngestWorker).drain();
  const shown = await t.http.get(`/v1/documents/${created.body.document_id}`).set('Authorization', `Bearer ${tenant.apiKey.key}`).expect(200);
  expect(shown.body).toMatchObject({ status: 'processed', error: null });
  return created.body.document_id as string;
}

describe(`offline vectors at 256 dimensions, end to end (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  describe('LOCI_LOCAL_EMBEDDING_DIM=256', () => {
    let t: TestApp;
    let a: Tenant;
    let b: Tenant;

    beforeAll(async () => {
      t = await startTestApp({ ...OFFLINE, LOCI_LOCAL_EMBEDDING_DIM: '256' });
      [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
      await ingest(t, a, 'staff.txt', TEXT_A);
      await ingest(t, b, 'north.txt', TEXT_B);
    });
    afterAll(() => t?.close());

    const ask = (body: object, tenant: Tenant) =>
      t.http.post('/v1/query').set('Authorization', `Bearer ${tenant.apiKey.key}`).send(body).expect(200);

    it('runs with the offline embedder at 256 dimensions', () => {
      expect(t.settings.llm.localEmbeddingDimensions).toBe(256);
    });

    it.each(['chunks', 'entities', 'edges'] as const)(
      'stores an ingested document’s %s with vectors in the 256-wide columns only, under the 256-wide model',
      async (table) => {
        for (const tenant of [a, b]) {
          const counts = await filled(t, tenant.tenant.id, table);
          expect(counts.rows).toBeGreaterThan(0);
          for (const [wide, narrow] of VECTOR_COLUMNS[table]) {
            // Nothing in the 1024-wide column; every row's vector in the 256-wide one.
            expect({ column: wide, filled: counts[wide] }).toEqual({ column: wide, filled: 0 });
            expect({ column: narrow, filled: counts[narrow] }).toEqual({ column: narrow, filled: counts.rows });
            expect(await widthsOf(t, tenant.tenant.id, table, narrow)).toEqual([256]);
          }
          expect(await modelsOf(t, tenant.tenant.id, table)).toEqual([NARROW_MODEL]);
        }
      },
    );

    it.each(['naive', 'mix'] as const)('answers an API-key question in %s mode with the ingested evidence', async (mode) => {
      const response = await ask({ query: 'Where does Bob Smith live?', mode, context_only: true }, a);
      expect(response.body.metadata).toMatchObject({ model: 'context-mode-no-llm', no_answer_reason: null });
      const chunks = response.body.context.chunks as Array<{ text: string; document_name: string }>;
      expect(chunks[0]).toMatchObject({ document_name: 'staff.txt' });
      expect(chunks[0].text).toContain('Bob Smith lives in Paris');
      expect(JSON.stringify(response.body.context)).not.toMatch(/Zimmer|Zircon|Bergen/);
    });

    it('answers in mix mode with keywords, reaching the graph (entities and relations)', async () => {
      const response = await ask(
        {
          query: 'Where does Alice Johnson work?',
          mode: 'mix',
          context_only: true,
          hl_keywords: ['works at', 'employment'],
          ll_keywords: ['Alice Johnson', 'Acme Corporation'],
        },
        a,
      );
      expect(response.body.metadata).toMatchObject({ mode: 'mix', no_answer_reason: null });
      const { chunks, entities, relations } = response.body.context as {
        chunks: Array<{ text: string }>;
        entities: Array<{ name: string }>;
        relations: Array<{ source: string; target: string }>;
      };
      expect(chunks.map((c) => c.text).join('\n')).toContain('Alice Johnson works at Acme Corporation');
      expect(entities.map((e) => e.name)).toEqual(expect.arrayContaining(['Alice Johnson', 'Acme Corporation']));
      expect(relations.map((r) => `${r.source} -> ${r.target}`)).toContain('Alice Johnson -> Acme Corporation');
      expect(JSON.stringify(response.body.context)).not.toMatch(/Zimmer|Zircon|Bergen/);
    });

    it('finds the chunk by its 256-wide vector alone (no question text, so no BM25)', async () => {
      // /v1/query also ranks by BM25, which would find the chunk without any vector: this asks
      // the app's retrieval with the question's vector only, embedded as the app embeds at 256.
      const question = new LocalHashingEmbedder(256).embedText('Where does Bob Smith live? Paris');
      expect(question).toHaveLength(256);
      const graph = await t.app.get(GraphsRepository).defaultGraph(a.tenant.id);
      const found = await t.app.get(RetrievalService).retrieve({
        tenantId: a.tenant.id,
        graphId: graph.id,
        mode: 'naive',
        questionVector: question,
        embeddingModel: NARROW_MODEL,
      });
      expect(found.chunks.map((c) => c.text)).toEqual([TEXT_A]);
    });

    it('keeps tenants apart: the second tenant sees its own evidence and never the first’s', async () => {
      for (const mode of ['naive', 'mix'] as const) {
        const foreign = await ask({ query: 'Where does Bob Smith live?', mode, context_only: true }, b);
        expect(JSON.stringify(foreign.body.context ?? {})).not.toMatch(/Bob Smith|Alice Johnson|Acme|Paris|Berlin/);
        const own = await ask({ query: 'Where does Zed Zimmer work?', mode, context_only: true }, b);
        const text = JSON.stringify(own.body.context);
        expect(text).toContain('Zed Zimmer works at Zircon Labs');
        expect(text).not.toMatch(/Bob Smith|Alice Johnson|Acme|Paris|Berlin/);
      }
    });

    it('remembers a gb fact at 256 dimensions and answers a gb query with it', async () => {
      const remember = (tenant: Tenant, body: object) =>
        t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${tenant.apiKey.key}`).send(body).expect(200);
      const gbQuery = (tenant: Tenant, body: object) =>
        t.http.post('/v1/gb/query').set('Authorization', `Bearer ${tenant.apiKey.key}`).send(body);

      const remembered = await remember(a, { user_id: 'u-narrow', text: 'Carol Diaz works at Initech.' });
      const edge = (remembered.body.edges as Array<{ id: number; relation: string }>).find((e) => e.relation === 'works_at');
      expect(edge).toBeDefined();

      const response = await gbQuery(a, { user_id: 'u-narrow', query: 'Where does Carol Diaz work?' }).expect(200);
      expect(response.body.answer).toContain('Initech');
      expect(response.body.evidence.edges).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: edge!.id, source: 'Carol Diaz', target: 'Initech', relation: 'works_at' })]),
      );

      // The gb graph's rows too are at 256 only (the tenant's rows: document graph and gb graph).
      const gbGraph = await t.app.get(GraphsRepository).findGbGraph(a.tenant.id, 'u-narrow', 'main');
      expect(gbGraph).toBeDefined();
      for (const table of ['entities', 'edges'] as const) {
        const counts = await filled(t, a.tenant.id, table);
        for (const [wide, narrow] of VECTOR_COLUMNS[table]) {
          expect({ column: wide, filled: counts[wide] }).toEqual({ column: wide, filled: 0 });
          expect({ column: narrow, filled: counts[narrow] }).toEqual({ column: narrow, filled: counts.rows });
        }
        expect(await modelsOf(t, a.tenant.id, table)).toEqual([NARROW_MODEL]);
      }
      const chunkCounts = await filled(t, a.tenant.id, 'chunks');
      expect({ embedding: chunkCounts.embedding, summary_embedding: chunkCounts.summary_embedding }).toEqual({ embedding: 0, summary_embedding: 0 });

      // The other tenant has no such user.
      await gbQuery(b, { user_id: 'u-narrow', query: 'Where does Carol Diaz work?' }).expect(404);
    });
  });

  describe('default width (1024), for contrast', () => {
    let t: TestApp;
    let a: Tenant;

    beforeAll(async () => {
      t = await startTestApp({ ...OFFLINE });
      a = await createTenantWithPeople(t.app);
      await ingest(t, a, 'staff.txt', TEXT_A);
    });
    afterAll(() => t?.close());

    it.each(['chunks', 'entities', 'edges'] as const)(
      'stores the same document’s %s with vectors in the 1024-wide columns only',
      async (table) => {
        const counts = await filled(t, a.tenant.id, table);
        expect(counts.rows).toBeGreaterThan(0);
        for (const [wide, narrow] of VECTOR_COLUMNS[table]) {
          expect({ column: wide, filled: counts[wide] }).toEqual({ column: wide, filled: counts.rows });
          expect({ column: narrow, filled: counts[narrow] }).toEqual({ column: narrow, filled: 0 });
          expect(await widthsOf(t, a.tenant.id, table, wide)).toEqual([1024]);
        }
        expect(await modelsOf(t, a.tenant.id, table)).toEqual([WIDE_MODEL]);
      },
    );

    it('answers the same question in naive mode', async () => {
      const response = await t.http
        .post('/v1/query')
        .set('Authorization', `Bearer ${a.apiKey.key}`)
        .send({ query: 'Where does Bob Smith live?', mode: 'naive', context_only: true })
        .expect(200);
      expect(response.body.context.chunks[0].text).toContain('Bob Smith lives in Paris');
    });
  });
});
