import { sql } from 'drizzle-orm';
import { Database, DATABASE, GraphsRepository, InferencesRepository, jobs, queryRows, RequestLogsRepository } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

const PEOPLE = [
  ['Alice Johnson', 'Acme Corporation', 'Paris'],
  ['Bob Smith', 'Globex Industries', 'Berlin'],
  ['Carol Jones', 'Initech Systems', 'Madrid'],
  ['David Brown', 'Umbrella Holdings', 'Lisbon'],
  ['Erin Davis', 'Vandelay Industries', 'Vienna'],
  ['Frank Miller', 'Hooli Labs', 'Prague'],
  ['Grace Wilson', 'Stark Enterprises', 'Dublin'],
  ['Henry Moore', 'Wayne Enterprises', 'Oslo'],
] as const;

/** Longer than one 100-token chunk, so it is stored with chunks and their vectors (passages). */
const LONG_TEXT = PEOPLE.map(
  ([person, company, city]) =>
    `${person} works at ${company} in ${city}, where the team builds careful software and meets every Monday morning to plan the week ahead.`,
).join(' ');

/** GET /v1/gb/trajectories/:request_id and /v1/gb/datasets on the embedded default (local provider). */
describe('gb trajectories and datasets', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp({
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      LOCI_CHUNK_TOKENS: '100',
      LOCI_CHUNK_OVERLAP_TOKENS: '0',
    });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const remember = (body: object, token = a.apiKey.key) => t.http.post('/v1/gb/remember').set(as(token)).send(body).expect(200);
  const query = (body: object, token = a.apiKey.key) => t.http.post('/v1/gb/query').set(as(token)).send(body);
  const trajectory = (requestId: string, token = a.apiKey.key) => t.http.get(`/v1/gb/trajectories/${encodeURIComponent(requestId)}`).set(as(token));
  const listDatasets = (userId: string | undefined, token = a.apiKey.key) =>
    t.http.get('/v1/gb/datasets').query(userId === undefined ? {} : { user_id: userId }).set(as(token));
  const deleteDataset = (name: string, userId: string | undefined, token = a.apiKey.key) =>
    t.http.delete(`/v1/gb/datasets/${encodeURIComponent(name)}`).query(userId === undefined ? {} : { user_id: userId }).set(as(token));

  const db = () => t.app.get<Database>(DATABASE).db;
  const count = async (query: ReturnType<typeof sql>) => Number((await queryRows<{ n: number }>(db(), query))[0].n);
  const graphId = async (tenant: Tenant, userId: string, dataset: string) => (await t.app.get(GraphsRepository).findGbGraph(tenant.tenant.id, userId, dataset))?.id;

  /** Every row of a graph, counted straight from the tables (provenance through the graph's documents). */
  async function rowsOf(tenantId: string, graph: number, documentIds: number[]) {
    const docs = documentIds.length ? documentIds : [-1];
    return {
      graphs: await count(sql`SELECT count(*)::int AS n FROM graphs WHERE tenant_id = ${tenantId} AND id = ${graph}`),
      documents: await count(sql`SELECT count(*)::int AS n FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graph}`),
      chunks: await count(sql`SELECT count(*)::int AS n FROM chunks WHERE tenant_id = ${tenantId} AND graph_id = ${graph}`),
      chunkVectors: await count(
        sql`SELECT count(*)::int AS n FROM chunks WHERE tenant_id = ${tenantId} AND graph_id = ${graph} AND embedding IS NOT NULL`,
      ),
      entities: await count(sql`SELECT count(*)::int AS n FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graph}`),
      entityVectors: await count(
        sql`SELECT count(*)::int AS n FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graph} AND embedding IS NOT NULL`,
      ),
      edges: await count(sql`SELECT count(*)::int AS n FROM edges WHERE tenant_id = ${tenantId} AND graph_id = ${graph}`),
      liveEdges: await count(
        sql`SELECT count(*)::int AS n FROM edges WHERE tenant_id = ${tenantId} AND graph_id = ${graph} AND expired_at IS NULL`,
      ),
      provenance: await count(
        sql`SELECT ((SELECT count(*) FROM entity_documents WHERE tenant_id = ${tenantId} AND document_id IN ${docs})
                  + (SELECT count(*) FROM edge_documents WHERE tenant_id = ${tenantId} AND document_id IN ${docs})
                  + (SELECT count(*) FROM entity_chunks c JOIN chunks k ON k.tenant_id = c.tenant_id AND k.id = c.chunk_id
                       WHERE c.tenant_id = ${tenantId} AND k.document_id IN ${docs})
                  + (SELECT count(*) FROM edge_chunks c JOIN chunks k ON k.tenant_id = c.tenant_id AND k.id = c.chunk_id
                       WHERE c.tenant_id = ${tenantId} AND k.document_id IN ${docs}))::int AS n`,
      ),
      jobs: await count(
        sql`SELECT count(*)::int AS n FROM jobs WHERE tenant_id = ${tenantId} AND payload->>'documentId' IN (SELECT unnest(${`{${docs.join(',')}}`}::text[]))`,
      ),
    };
  }

  const documentIdsOf = async (tenantId: string, graph: number) =>
    (await queryRows<{ id: number }>(db(), sql`SELECT id FROM documents WHERE tenant_id = ${tenantId} AND graph_id = ${graph} ORDER BY id`)).map((r) =>
      Number(r.id),
    );

  describe('GET /v1/gb/trajectories/:request_id', () => {
    it('shows the five steps with their counts, the request, and its model calls from the ledger', async () => {
      await remember({ user_id: 'traj', text: 'Alice Johnson works at Acme Corporation.' });
      const asked = await query({ user_id: 'traj', query: 'Where does Alice Johnson work?', session_id: 'chat-7' }).expect(200);
      const requestId = asked.headers['x-request-id'];

      const response = await trajectory(requestId).expect(200);
      const body = response.body;
      expect(body).toMatchObject({
        request_id: requestId,
        status: 200,
        user_id: 'traj',
        dataset: 'main',
        session_id: 'chat-7',
        caller: { kind: 'api_key', id: a.apiKey.id },
        model: 'local:local-nlp-v1',
        latency_ms: expect.any(Number),
      });
      expect(new Date(body.created_at).toISOString()).toBe(body.created_at);

      // The steps, in order, each with its wall time and what it found.
      expect(body.steps.map((s: { name: string }) => s.name)).toEqual(['keyword_seeds', 'search_vectors', 'expand', 'passages', 'answer']);
      const step = (name: string) => body.steps.find((s: { name: string }) => s.name === name);
      for (const s of body.steps) expect(s.ms).toEqual(expect.any(Number));
      expect(step('keyword_seeds').counts).toEqual({ terms: expect.any(Number), seeds: 2 });
      expect(step('keyword_seeds').counts.terms).toBeGreaterThan(0);
      expect(Object.keys(step('search_vectors').counts).sort()).toEqual(['chunks', 'edges', 'entities', 'summaries']);
      expect(step('expand').counts).toMatchObject({ fallback: 0, entities: 2, edges: 1 });
      expect(step('passages').counts).toEqual({ passages: 0, with_text: 0, lexical: 0 });
      expect(step('answer').counts).toEqual({ model: 'local:local-nlp-v1', entities: expect.any(Number), edges: 1, passages: 0 });

      // The model calls are the ledger's rows of the request, in call order: the question's
      // embedding first, then the answer (the local answerer embeds the sentences it ranks too).
      const ledger = await t.app.get(InferencesRepository).listByRequest(a.tenant.id, requestId);
      expect(ledger.map((row) => row.stage).slice(0, 2)).toEqual(['embed', 'query']);
      expect(body.inferences).toEqual(
        ledger.map((row) => ({
          call_index: row.callIndex,
          kind: 'query',
          stage: row.stage,
          provider: 'local',
          model: row.model,
          billed_to: 'platform',
          status: 'ok',
          tokens_in: row.tokensIn,
          tokens_out: row.tokensOut,
          tokens_thinking: row.tokensThinking,
          cost_usd: 0,
          latency_ms: row.latencyMs,
          created_at: row.createdAt.toISOString(),
          ...(row.reasoning ? { reasoning: row.reasoning } : {}),
        })),
      );
      expect(body.totals).toEqual({
        model_calls: ledger.length,
        tokens_in: ledger.reduce((sum, row) => sum + row.tokensIn, 0),
        tokens_out: ledger.reduce((sum, row) => sum + row.tokensOut, 0),
        tokens_thinking: 0,
        cost_usd: 0,
      });
      expect(body.totals.tokens_in).toBeGreaterThan(0);

      // The same trajectory for a dashboard session of the tenant.
      expect((await trajectory(requestId, a.member.token).expect(200)).body).toEqual(body);
      expect((await trajectory(requestId, a.admin.token).expect(200)).body).toEqual(body);
    });

    it('prices the calls in USD from integer micro-dollars, a pending call at its estimate', async () => {
      await remember({ user_id: 'priced', text: 'Bob Smith lives in Paris.' });
      const asked = await query({ user_id: 'priced', query: 'Where does Bob Smith live?' }).expect(200);
      const requestId = asked.headers['x-request-id'];
      // Calls of a priced model on the same request, as the gateway writes them.
      const ledger = t.app.get(InferencesRepository);
      const key = { tenantId: a.tenant.id, requestId };
      const call = { ...key, kind: 'query', stage: 'query', provider: 'anthropic', model: 'claude-haiku-4-5', billedTo: 'platform' as const };
      await ledger.begin({ ...call, callIndex: 10, reasoning: 'low', estimatedCostMicros: 9_000 });
      await ledger.complete({ ...key, callIndex: 10 }, { status: 'error', tokensIn: 1000, tokensOut: 200, tokensThinking: 50, costMicros: 1_234, latencyMs: 12, error: 'reply cut at max_tokens' });
      await ledger.begin({ ...call, callIndex: 11, estimatedCostMicros: 5_000 });

      const calls = (await ledger.listByRequest(a.tenant.id, requestId)).length;
      const { body } = await trajectory(requestId).expect(200);
      const [failed, pending] = body.inferences.slice(-2);
      expect(failed).toMatchObject({
        call_index: 10,
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        reasoning: 'low',
        status: 'error',
        error: 'reply cut at max_tokens',
        tokens_in: 1000,
        tokens_out: 200,
        tokens_thinking: 50,
        cost_usd: 0.001234,
        latency_ms: 12,
      });
      expect(pending).toMatchObject({ call_index: 11, status: 'pending', cost_usd: 0.005 });
      expect(pending).not.toHaveProperty('latency_ms');
      expect(pending).not.toHaveProperty('reasoning');
      expect(body.totals).toMatchObject({ model_calls: calls, tokens_thinking: 50, cost_usd: 0.006234 });
    });

    it('has no answer step when there was nothing to answer from, and no model', async () => {
      await remember({ user_id: 'nothing', text: 'ok.' });
      const asked = await query({ user_id: 'nothing', query: 'What do you know?' }).expect(200);
      const { body } = await trajectory(asked.headers['x-request-id']).expect(200);
      expect(body.steps.map((s: { name: string }) => s.name)).toEqual(['keyword_seeds', 'search_vectors', 'expand', 'passages']);
      expect(body).not.toHaveProperty('model');
      expect(body).not.toHaveProperty('session_id');
      expect(body.inferences.map((c: { stage: string }) => c.stage)).toEqual(['embed']);
    });

    it('records a failed question too, with its status, its error and the steps it got through', async () => {
      const asked = await query({ user_id: 'nobody-here', query: 'Where does Alice work?' }).expect(404);
      const { body } = await trajectory(asked.headers['x-request-id']).expect(200);
      expect(body).toMatchObject({ status: 404, error: 'not_found', user_id: 'nobody-here', dataset: 'main', steps: [], inferences: [] });
      expect(body).not.toHaveProperty('model');
    });

    it('answers 404 {"error"} for another tenant, an unknown id and a request of another route', async () => {
      await remember({ user_id: 'private', text: 'Carol Jones works at Initech.' });
      const asked = await query({ user_id: 'private', query: 'Where does Carol Jones work?' }).expect(200);
      const requestId = asked.headers['x-request-id'];
      await trajectory(requestId).expect(200);

      const otherRoute = `other-${requestId}`;
      await t.app.get(RequestLogsRepository).insert({
        tenantId: a.tenant.id,
        requestId: otherRoute,
        route: '/v1/query',
        principalKind: 'api_key',
        principalId: a.apiKey.id,
        status: 200,
        steps: [],
      });
      for (const [id, token] of [
        [requestId, b.apiKey.key],
        [requestId, b.admin.token],
        ['00000000-0000-4000-8000-000000000000', a.apiKey.key],
        ['not a request id', a.apiKey.key],
        [otherRoute, a.apiKey.key],
      ]) {
        const response = await trajectory(id, token).expect(404);
        expect(Object.keys(response.body)).toEqual(['error']);
        expect(JSON.stringify(response.body)).not.toContain('Initech');
      }
    });
  });

  describe('GET /v1/gb/datasets', () => {
    it('lists the user datasets by name with what each holds', async () => {
      await remember({ user_id: 'lister', text: 'Alice Johnson works at Acme Corporation.' });
      await remember({ user_id: 'lister', dataset: 'work', text: LONG_TEXT });
      await remember({ user_id: 'lister', dataset: 'work', text: 'In March 2024, Alice Johnson joined Globex.' });
      await remember({ user_id: 'someone-else', dataset: 'zzz', text: 'Dan plays for Ajax.' });

      const { body } = await listDatasets('lister', a.member.token).expect(200);
      expect(body.datasets.map((d: { name: string }) => d.name)).toEqual(['main', 'work']);
      for (const dataset of body.datasets) {
        const graph = (await graphId(a, 'lister', dataset.name))!;
        const rows = await rowsOf(a.tenant.id, graph, await documentIdsOf(a.tenant.id, graph));
        expect(dataset).toEqual({
          name: dataset.name,
          created_at: expect.any(String),
          last_remembered_at: expect.any(String),
          texts: rows.documents,
          chunks: rows.chunks,
          entities: rows.entities,
          edges: rows.edges,
          live_edges: rows.liveEdges,
        });
      }
      const [main, work] = body.datasets;
      expect(main).toMatchObject({ texts: 1, chunks: 0, entities: 2, edges: 1, live_edges: 1 });
      expect(work.texts).toBe(2);
      expect(work.chunks).toBeGreaterThan(1);
      expect(work.entities).toBeGreaterThan(main.entities);
      expect(Date.parse(work.last_remembered_at)).toBeGreaterThanOrEqual(Date.parse(work.created_at));
    });

    it('answers {"datasets": []} for a user with none', async () => {
      const { body } = await listDatasets('no-such-user').expect(200);
      expect(body).toEqual({ datasets: [] });
    });

    it('answers 400 {"error"} without a user_id', async () => {
      for (const response of [
        await listDatasets(undefined).expect(400),
        await listDatasets('   ').expect(400),
        await deleteDataset('main', undefined).expect(400),
        await deleteDataset('main', '').expect(400),
      ]) {
        expect(Object.keys(response.body)).toEqual(['error']);
        expect(response.body.error).toContain('user_id is required');
      }
    });
  });

  describe('DELETE /v1/gb/datasets/:name', () => {
    it('removes the dataset graph with its texts, chunks, vectors, provenance and jobs, and nothing else', async () => {
      await remember({ user_id: 'deleter', text: LONG_TEXT });
      await remember({ user_id: 'deleter', text: 'Alice Johnson moved to Rome in 2024.' });
      await remember({ user_id: 'deleter', dataset: 'keep', text: LONG_TEXT });
      const gone = (await graphId(a, 'deleter', 'main'))!;
      const kept = (await graphId(a, 'deleter', 'keep'))!;
      const goneDocs = await documentIdsOf(a.tenant.id, gone);
      const keptDocs = await documentIdsOf(a.tenant.id, kept);
      // A job naming a text of each dataset (a kind no worker claims, so it stays put).
      await db().insert(jobs).values([
        { tenantId: a.tenant.id, kind: 'test_probe', payload: { documentId: goneDocs[0] } },
        { tenantId: a.tenant.id, kind: 'test_probe', payload: { documentId: keptDocs[0] } },
      ]);
      const before = await rowsOf(a.tenant.id, gone, goneDocs);
      const keptBefore = await rowsOf(a.tenant.id, kept, keptDocs);
      expect(before).toMatchObject({ graphs: 1, documents: 2, jobs: 1 });
      expect(before.chunks).toBeGreaterThan(1);
      expect(before.chunkVectors).toBe(before.chunks);
      expect(before.entityVectors).toBeGreaterThan(0);
      expect(before.edges).toBeGreaterThan(0);
      expect(before.provenance).toBeGreaterThan(0);
      await query({ user_id: 'deleter', query: 'Where does Alice Johnson work?' }).expect(200);

      const response = await deleteDataset('main', 'deleter', a.admin.token).expect(200);
      expect(response.body).toEqual({
        user_id: 'deleter',
        dataset: 'main',
        deleted: { texts: before.documents, chunks: before.chunks, entities: before.entities, edges: before.edges },
      });

      expect(await rowsOf(a.tenant.id, gone, goneDocs)).toEqual({
        graphs: 0,
        documents: 0,
        chunks: 0,
        chunkVectors: 0,
        entities: 0,
        entityVectors: 0,
        edges: 0,
        liveEdges: 0,
        provenance: 0,
        jobs: 0,
      });
      expect(await rowsOf(a.tenant.id, kept, keptDocs)).toEqual(keptBefore);

      const asked = await query({ user_id: 'deleter', query: 'Where does Alice Johnson work?' }).expect(404);
      expect(Object.keys(asked.body)).toEqual(['error']);
      await query({ user_id: 'deleter', dataset: 'keep', query: 'Where does Alice Johnson work?' }).expect(200);
      expect((await listDatasets('deleter').expect(200)).body.datasets.map((d: { name: string }) => d.name)).toEqual(['keep']);

      const again = await deleteDataset('main', 'deleter').expect(404);
      expect(again.body).toEqual({ error: expect.stringContaining('does not exist') });
    });

    it('answers 404 {"error"} for a dataset the user does not have, or a name no dataset can have', async () => {
      await remember({ user_id: 'owner', dataset: 'notes', text: 'Erin Davis lives in Vienna.' });
      for (const [name, userId] of [
        ['other', 'owner'],
        ['notes', 'not-the-owner'],
        ['no spaces allowed', 'owner'],
      ]) {
        const response = await deleteDataset(name, userId).expect(404);
        expect(Object.keys(response.body)).toEqual(['error']);
      }
      expect((await listDatasets('owner').expect(200)).body.datasets.map((d: { name: string }) => d.name)).toEqual(['notes']);
    });

    it('keeps tenants apart: tenant B neither sees nor deletes tenant A user u1 datasets', async () => {
      await remember({ user_id: 'u1', text: 'Alice Johnson works at Acme Corporation.' });
      await remember({ user_id: 'u1', dataset: 'extra', text: 'Bob Smith lives in Berlin.' });
      await remember({ user_id: 'u1', text: 'Grace Wilson works at Stark Enterprises. Henry Moore lives in Oslo.' }, b.apiKey.key);

      const inA = (await listDatasets('u1').expect(200)).body.datasets;
      const inB = (await listDatasets('u1', b.admin.token).expect(200)).body.datasets;
      expect(inA.map((d: { name: string }) => d.name)).toEqual(['extra', 'main']);
      expect(inB.map((d: { name: string }) => d.name)).toEqual(['main']);
      expect(inB[0].texts).toBe(1);
      expect(inB[0].entities).not.toBe(inA.find((d: { name: string }) => d.name === 'main').entities);

      // B cannot delete A's dataset, and deleting its own u1/main leaves A's untouched.
      await deleteDataset('extra', 'u1', b.apiKey.key).expect(404);
      const aMain = (await graphId(a, 'u1', 'main'))!;
      const aMainBefore = await rowsOf(a.tenant.id, aMain, await documentIdsOf(a.tenant.id, aMain));
      const deleted = await deleteDataset('main', 'u1', b.apiKey.key).expect(200);
      expect(deleted.body.deleted.texts).toBe(1);
      expect(await graphId(b, 'u1', 'main')).toBeUndefined();
      expect(await rowsOf(a.tenant.id, aMain, await documentIdsOf(a.tenant.id, aMain))).toEqual(aMainBefore);
      expect((await listDatasets('u1').expect(200)).body.datasets).toEqual(inA);
      await query({ user_id: 'u1', query: 'Where does Alice Johnson work?' }).expect(200);
      await query({ user_id: 'u1', query: 'Where does Grace Wilson work?' }, b.apiKey.key).expect(404);
    });
  });
});
