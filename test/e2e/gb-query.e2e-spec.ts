import { GraphsRepository, InferencesRepository, RequestLogsRepository } from '@loci/db';
import { CallContext } from '@loci/llm';
import { GB_NO_INFORMATION_ANSWER, GbQueryService } from '@loci/retrieval';
import { createTenantWithPeople, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface EdgeJson {
  id: number;
  source_id: number;
  target_id: number;
  source: string;
  target: string;
  relation: string;
  change?: string;
  expired_at?: string;
}

/** POST /v1/gb/query on the embedded default (local provider: extractive answers). */
describe('POST /v1/gb/query', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const remember = (body: object, key = a.apiKey.key) =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${key}`).send(body).expect(200);
  const query = (body: unknown, token = a.apiKey.key) =>
    t.http.post('/v1/gb/query').set('Authorization', `Bearer ${token}`).send(body as object);

  it.each([
    [{ query: 'x' }, 'user_id is required'],
    [{ user_id: 'u' }, 'query is required'],
    [{ user_id: 'u', query: '   ' }, 'query must not be empty'],
    [{ user_id: 'u', query: 3 }, 'query is required and must be a string'],
    [{ user_id: 'u', query: 'q', session_id: 'x'.repeat(129) }, 'session_id must be at most 128 bytes'],
    [{ user_id: 'u', query: 'q', session_id: 'a\u0007b' }, 'control characters'],
    [{ user_id: 'u', query: 'q', reasoning: 'loud' }, 'unknown reasoning level "loud"'],
    [{ user_id: 'u', query: 'q', reasoning: { extract: 'low' } }, 'unknown stage "extract"'],
    [{ user_id: 'u', query: 'q', reasoning: 3 }, 'reasoning must be'],
    [{ user_id: 'u', query: 'q', models: { summarize: 'claude-haiku-4-5' } }, 'unknown stage "summarize"'],
    [{ user_id: 'u', query: 'q', models: { query: 'no such model!' } }, 'malformed model name'],
    [{ user_id: 'u', query: 'q', models: { query: 'gpt-unknown-9' } }, 'no known price'],
    [{ user_id: 'u', query: 'q', dataset: 'no spaces' }, 'dataset must be'],
    [{ user_id: 'u', query: 'q', geo_nearby: true }, 'geo is not enabled on this server'],
    [{ user_id: 'u', query: 'q', geo_radius_km: 10 }, 'geo is not enabled on this server'],
    [{ user_id: 'u', query: 'q', geo_radius_km: 0 }, 'geo_radius_km must be greater than 0'],
    [{ user_id: 'u', query: 'q', geo_radius_km: 20016 }, 'at most 20015'],
    [{ user_id: 'u', query: 'q', geo_nearby: 'yes' }, 'geo_nearby must be a boolean'],
  ])('answers %j with 400 {"error": ...}', async (body, message) => {
    const response = await query(body).expect(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toContain(message);
  });

  it('answers 404 {"error"} for a user or dataset that does not exist', async () => {
    await remember({ user_id: 'has-main', text: 'Hana works at Hooli.' });
    for (const body of [
      { user_id: 'nobody', query: 'Where does Hana work?' },
      { user_id: 'has-main', dataset: 'work', query: 'Where does Hana work?' },
    ]) {
      const response = await query(body).expect(404);
      expect(Object.keys(response.body)).toEqual(['error']);
    }
  });

  it('answers the fixed answer, with empty evidence and no model call, from an empty dataset', async () => {
    await remember({ user_id: 'empty', text: 'ok.' });
    const response = await query({ user_id: 'empty', query: 'What do you know?' }).expect(200);
    expect(response.body).toEqual({ answer: GB_NO_INFORMATION_ANSWER, evidence: { entities: [], edges: [], passages: [] } });
    const calls = await t.app.get(InferencesRepository).listByRequest(a.tenant.id, response.headers['x-request-id']);
    expect(calls.map((c) => c.stage)).toEqual(['embed']);
  });

  it('finds the keyword seed and answers with its fact as evidence (API key, JWT admin and member)', async () => {
    const remembered = await remember({ user_id: 'kw', text: 'Alice Johnson works at Acme Corporation.' });
    const edge = remembered.body.edges[0] as EdgeJson;
    for (const token of [a.apiKey.key, a.admin.token, a.member.token]) {
      const response = await query({ user_id: 'kw', query: 'Where does Alice Johnson work?' }, token).expect(200);
      expect(response.body.answer).toContain('Acme');
      expect(response.body).not.toHaveProperty('session_id');
      expect(response.body.evidence.edges).toEqual([
        expect.objectContaining({
          id: edge.id,
          source: 'Alice Johnson',
          target: 'Acme Corporation',
          relation: 'works_at',
          artifact_id: remembered.body.artifact_id,
          created_at: expect.any(String),
        }),
      ]);
      expect(response.body.evidence.edges[0]).not.toHaveProperty('expired_at');
      expect(response.body.evidence.entities.map((e: { name: string }) => e.name).sort()).toEqual(['Acme Corporation', 'Alice Johnson']);
      expect(response.body.evidence.passages).toEqual([]);
    }
    // The calls are on the ledger as type query (the contract's): the embedding and the (local) query stage.
    const response = await query({ user_id: 'kw', query: 'Where does Alice Johnson work?' }).expect(200);
    const calls = await t.app.get(InferencesRepository).listByRequest(a.tenant.id, response.headers['x-request-id']);
    expect(calls.map((c) => c.stage)).toEqual(expect.arrayContaining(['embed', 'query']));
    expect(new Set(calls.map((c) => c.kind))).toEqual(new Set(['query']));
  });

  it('never retrieves a superseded fact', async () => {
    await remember({ user_id: 'history', text: 'Alice works at Acme since 2023.' });
    const second = await remember({ user_id: 'history', text: 'In March 2024, Alice joined Globex.' });
    const superseded = (second.body.edges as EdgeJson[]).find((e) => e.change === 'superseded')!;
    expect(superseded).toBeDefined();
    const service = t.app.get(GbQueryService);
    const saved = service.settings.minSimilarity;
    try {
      for (const minSimilarity of [saved, -1]) {
        // -1: every vector match counts, so the superseded edge's vector is found too (and dropped).
        service.settings.minSimilarity = minSimilarity;
        for (const question of ['Where does Alice work?', 'Where did Alice work before?', 'Acme']) {
          const response = await query({ user_id: 'history', query: question }).expect(200);
          expect(response.body.evidence.edges.map((e: EdgeJson) => e.id)).not.toContain(superseded.id);
        }
      }
    } finally {
      service.settings.minSimilarity = saved;
    }
    // What is sent to the answerer: the live fact, never the superseded one (by keyword or by similarity).
    const graph = await t.app.get(GraphsRepository).findGbGraph(a.tenant.id, 'history', 'main');
    for (const minSimilarity of [saved, -1]) {
      service.settings.minSimilarity = minSimilarity;
      try {
        const ctx = new CallContext(a.tenant.id, `retrieve-${minSimilarity}`, 'query');
        const context = await service.retrieve(ctx, { tenantId: a.tenant.id, graphId: graph!.id }, 'Where did Alice work before?', (_n, work) => work());
        expect(context.edges.map((e) => `${e.relation} ${e.target}`)).toEqual(['joined Globex']);
      } finally {
        service.settings.minSimilarity = saved;
      }
    }
  });

  it('echoes session_id and records it with the trajectory', async () => {
    await remember({ user_id: 'sess', text: 'Bob Smith lives in Paris.' });
    const response = await query({ user_id: 'sess', query: 'Where does Bob Smith live?', session_id: 'chat-42' }).expect(200);
    expect(response.body.session_id).toBe('chat-42');
    const log = await t.app.get(RequestLogsRepository).byRequestId(a.tenant.id, response.headers['x-request-id']);
    expect(log).toMatchObject({ route: '/v1/gb/query', sessionId: 'chat-42', status: 200 });
    const steps = (log.steps as { steps: Array<{ name: string }> }).steps.map((s) => s.name);
    expect(steps).toEqual(['keyword_seeds', 'search_vectors', 'expand', 'passages', 'answer']);
  });

  it('keeps tenants apart: tenant B sees nothing of tenant A user with the same user_id', async () => {
    const inA = await remember({ user_id: 'same-id', text: 'Erin works at Vandelay Industries.' });
    await query({ user_id: 'same-id', query: 'Where does Erin work?' }, b.apiKey.key).expect(404);
    await remember({ user_id: 'same-id', text: 'Frank plays chess.' }, b.apiKey.key);
    const response = await query({ user_id: 'same-id', query: 'Where does Erin work?' }, b.apiKey.key).expect(200);
    const aIds = (inA.body.entities as Array<{ id: number }>).map((e) => e.id);
    const bIds = [...response.body.evidence.entities, ...response.body.evidence.edges].map((e: { id: number }) => e.id);
    expect(JSON.stringify(response.body)).not.toContain('Vandelay');
    expect(bIds).not.toEqual(expect.arrayContaining(aIds.length ? [aIds[0]] : [-1]));
  });
});

/** POST /v1/gb/query with a model: the real SDKs against the loopback double. */
describe('POST /v1/gb/query with an LLM', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      // Extraction offline, so the graph holds real facts; the query stage uses the double.
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
    });
    a = await createTenantWithPeople(t.app);
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const remember = (body: object) =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${a.apiKey.key}`).send(body).expect(200);
  const query = (body: object) => t.http.post('/v1/gb/query').set('Authorization', `Bearer ${a.apiKey.key}`).send(body);
  const promptOf = (body: Record<string, unknown>) => JSON.stringify(body.messages);
  const idsIn = (prompt: string, kind: string) => [...prompt.matchAll(new RegExp(`\\[${kind} (\\d+)\\]`, 'g'))].map((m) => Number(m[1]));

  it('keeps only the cited ids that were in the context, with the endpoints of cited edges', async () => {
    const remembered = await remember({ user_id: 'u1', text: 'Alice Johnson works at Acme Corporation.' });
    const edge = remembered.body.edges[0] as EdgeJson;
    double.anthropic.reply((body) => {
      const prompt = promptOf(body);
      const edges = idsIn(prompt, 'edge');
      return { text: `Sure:\n\`\`\`json\n${JSON.stringify({ answer: 'Alice works at Acme.', entities: [99999], edges: [...edges, ...edges, 88888], passages: [77777] })}\n\`\`\`` };
    });
    const response = await query({ user_id: 'u1', query: 'Where does Alice Johnson work?', session_id: 's1' }).expect(200);
    expect(response.body).toMatchObject({ session_id: 's1', answer: 'Alice works at Acme.' });
    expect(response.body.evidence.edges).toEqual([
      expect.objectContaining({ id: edge.id, source_id: edge.source_id, target_id: edge.target_id, source: 'Alice Johnson', target: 'Acme Corporation' }),
    ]);
    expect(response.body.evidence.entities.map((e: { id: number }) => e.id)).toEqual([edge.source_id, edge.target_id].sort((x, y) => x - y));
    expect(response.body.evidence.passages).toEqual([]);
    const [request] = double.anthropic.requests;
    expect(request.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 2048 });
    expect(request.body).not.toHaveProperty('thinking');
    expect(promptOf(request.body)).toContain('<current_time>');
    expect(promptOf(request.body)).toContain(`[edge ${edge.id}] Alice Johnson(${edge.source_id}) --works_at--> Acme Corporation(${edge.target_id})`);
  });

  it('sends the reasoning level as a thinking budget and the models override to the wire', async () => {
    double.anthropic.reply({ text: '{"answer":"Acme.","entities":[],"edges":[],"passages":[]}' });
    await query({ user_id: 'u1', query: 'Where does Alice Johnson work?', reasoning: 'MEDIUM', models: { query: 'claude-sonnet-4-5' } }).expect(200);
    const [request] = double.anthropic.requests;
    expect(request.body.model).toBe('claude-sonnet-4-5');
    const thinking = request.body.thinking as { type: string; budget_tokens: number };
    expect(thinking).toMatchObject({ type: 'enabled', budget_tokens: expect.any(Number) });
    expect(request.body.max_tokens).toBe(2048 + thinking.budget_tokens);
  });

  it('never puts a superseded fact in the prompt', async () => {
    await remember({ user_id: 'hist', text: 'Alice works at Acme since 2023.' });
    const second = await remember({ user_id: 'hist', text: 'In March 2024, Alice joined Globex.' });
    const superseded = (second.body.edges as EdgeJson[]).find((e) => e.change === 'superseded')!;
    double.anthropic.reply({ text: JSON.stringify({ answer: 'Globex.', entities: [], edges: [superseded.id], passages: [] }) });
    const response = await query({ user_id: 'hist', query: 'Where did Alice work before?' }).expect(200);
    const prompt = promptOf(double.anthropic.requests[0].body);
    expect(idsIn(prompt, 'edge')).not.toContain(superseded.id);
    expect(prompt).toContain('--joined--> Globex');
    expect(response.body.evidence.edges).toEqual([]);
  });

  it('answers 502 {"error"} when the model fails or its reply is unusable', async () => {
    double.anthropic.reply({ status: 500 });
    const failed = await query({ user_id: 'u1', query: 'Where does Alice Johnson work?' }).expect(502);
    expect(Object.keys(failed.body)).toEqual(['error']);
    double.anthropic.reply({ text: 'I think Alice works at Acme.' });
    const unusable = await query({ user_id: 'u1', query: 'Where does Alice Johnson work?' }).expect(502);
    expect(Object.keys(unusable.body)).toEqual(['error']);
  });
});
