import { DocumentsService, IngestWorker } from '@loci/ingest';
import { RequestLogsRepository } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** POST /v1/query on the embedded default: local provider, real store. */
describe('POST /v1/query (embedded default)', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let empty: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b, empty] = await Promise.all([1, 2, 3].map(() => createTenantWithPeople(t.app)));
    const documents = t.app.get(DocumentsService);
    await documents.submit(a.tenant.id, {
      name: 'staff.txt',
      mimeType: 'text/plain',
      text: 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris. Acme Corporation acquired Globex in 2019.',
    });
    await documents.submit(b.tenant.id, { name: 'b.txt', mimeType: 'text/plain', text: 'Zed Zimmer works at Zircon Labs in Oslo.' });
    await t.app.get(IngestWorker).drain();
  });
  afterAll(() => t.close());

  const ask = (body: unknown, token: string) => t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send(body as object);

  it('answers an API-key question with context only, in every mode, from the tenant graph', async () => {
    for (const mode of ['mix', 'local', 'global', 'naive', 'hybrid']) {
      const response = await ask(
        { query: 'Where does Alice Johnson work?', mode, context_only: true, hl_keywords: ['works at', 'employment'], ll_keywords: ['Alice Johnson', 'Acme Corporation'] },
        a.apiKey.key,
      ).expect(200);
      expect(response.body.answer).toBe('');
      expect(response.body.metadata).toMatchObject({ mode, model: 'context-mode-no-llm', tokens_in: 0, tokens_out: 0, no_answer_reason: null });
      const text = JSON.stringify(response.body.context);
      expect(text).toContain('Acme Corporation');
      expect(text).not.toContain('Zircon'); // tenant B's data
      expect(response.body.sources).toEqual([]);
    }
  });

  it('reaches a "works at" fact in global mode from the high-level keyword "employment"', async () => {
    const response = await ask(
      { query: 'What about employment?', mode: 'global', context_only: true, hl_keywords: ['employment'], ll_keywords: [] },
      a.apiKey.key,
    ).expect(200);
    const relations = response.body.context.relations as Array<{ source: string; target: string; keywords: string | null }>;
    expect(relations.map((r) => `${r.source} -> ${r.target}`)).toContain('Alice Johnson -> Acme Corporation');
    expect(response.body.context.chunks[0].document_name).toBe('staff.txt');
  });

  it('searches in the asked mode for an API key without keyword lists (offline keywords)', async () => {
    const response = await ask({ query: 'Where does Bob Smith live?', mode: 'local', context_only: true }, a.apiKey.key).expect(200);
    expect(response.body.metadata.mode).toBe('local');
    expect(response.body.context.chunks[0]).toMatchObject({ document_name: 'staff.txt', freshness: 'fresh', loaded_days_ago: 0 });
    expect(response.body.context.chunks[0].text).toContain('Bob Smith lives in Paris');
  });

  it('renders the context as text, led by the disclaimer, when an API key asks for an answer', async () => {
    const response = await ask({ query: 'Where does Bob Smith live?' }, a.apiKey.key).expect(200);
    expect(response.body.answer).toMatch(/^This is retrieved material, not an answer/);
    expect(response.body.answer).toContain('Bob Smith lives in Paris');
    expect(response.body.context).toBeNull();
  });

  it('answers a dashboard question with the answer stage, citing sources', async () => {
    const response = await ask({ query: 'Where does Bob Smith live?', include_sources: true }, a.member.token).expect(200);
    expect(response.body.answer).toContain('Paris');
    expect(response.body.metadata.model).toBe('local:local-nlp-v1');
    expect(response.body.sources[0]).toMatchObject({ document_name: 'staff.txt', reference_id: '1', freshness: 'fresh' });
    expect(response.body.sources[0].excerpt).toContain('Bob Smith');
    expect(response.body.context).toBeNull();
  });

  it('answers from an empty graph without a model call', async () => {
    // A dashboard question without keywords would ask the keywords stage first, so the graph
    // is checked before anything else.
    const response = await ask({ query: 'Anything?' }, empty.member.token).expect(200);
    expect(response.body).toMatchObject({
      answer: 'Недостаточно данных для ответа.',
      sources: [],
      context: null,
      metadata: { no_answer_reason: 'empty_graph', tokens_in: 0, tokens_out: 0 },
    });
  });

  it('tells an API-key client its graph is empty, checking only after the search found nothing', async () => {
    const response = await ask(
      { query: 'Anything?', context_only: true, hl_keywords: ['anything'], ll_keywords: ['anything'] },
      empty.apiKey.key,
    ).expect(200);
    expect(response.body.metadata).toMatchObject({ no_answer_reason: 'empty_graph', model: 'context-mode-no-llm' });
    const logs = t.app.get(RequestLogsRepository);
    const emptyLog = await logs.byRequestId(empty.tenant.id, response.headers['x-request-id']);
    const stepNames = (log: typeof emptyLog) => (log.steps as { steps: Array<{ name: string }> }).steps.map((step) => step.name);
    // The local embedder costs nothing, so the search runs first and the emptiness check after it.
    expect(stepNames(emptyLog)).toEqual(['keywords', 'embed', 'retrieve', 'check_graph']);

    // A graph with content: the search finds something, so the check is never made.
    const answered = await ask(
      { query: 'Where does Alice Johnson work?', context_only: true, hl_keywords: ['works at'], ll_keywords: ['Alice Johnson'] },
      a.apiKey.key,
    ).expect(200);
    expect(answered.body.metadata.no_answer_reason).toBeNull();
    expect(stepNames(await logs.byRequestId(a.tenant.id, answered.headers['x-request-id']))).toEqual(['keywords', 'embed', 'retrieve']);
  });

  it('answers a question nothing in the graph is about without a model call', async () => {
    // Both keyword lists given, so the keywords stage is not needed either: no model call at all.
    const response = await ask(
      { query: 'What is the boiling point of mercury in kelvin?', hl_keywords: ['physics'], ll_keywords: ['mercury', 'boiling point'] },
      a.member.token,
    ).expect(200);
    expect(response.body).toMatchObject({
      answer: 'Недостаточно данных для ответа.',
      metadata: { no_answer_reason: 'no_relevant_context', model: 'context-mode-no-llm', tokens_in: 0, tokens_out: 0 },
    });
  });

  it('records every request in the request log', async () => {
    const response = await ask({ query: 'Where does Bob Smith live?', context_only: true }, a.apiKey.key).expect(200);
    const log = await t.app.get(RequestLogsRepository).byRequestId(a.tenant.id, response.headers['x-request-id']);
    expect(log).toMatchObject({ route: '/v1/query', principalKind: 'api_key', status: 200 });
    expect(log.steps).toMatchObject({ mode_asked: 'mix', mode_used: 'mix' });
  });

  it.each([
    [{}, ['body', 'query'], 'missing'],
    [{ query: '   ' }, ['body', 'query'], 'value_error'],
    [{ query: 'q', hl_keywords: ['x'] }, ['body', 'll_keywords'], 'value_error'],
    [{ query: 'q', ll_keywords: ['x'] }, ['body', 'hl_keywords'], 'value_error'],
    [{ query: 'q', mode: 'deep' }, ['body', 'mode'], 'literal_error'],
    [{ query: 'q', include_sources: 'yes' }, ['body', 'include_sources'], 'bool_type'],
  ])('answers %j with a FastAPI 422', async (body, loc, type) => {
    const response = await ask(body, a.apiKey.key).expect(422);
    expect(response.body).toEqual({ detail: [expect.objectContaining({ loc, type, msg: expect.any(String) })] });
  });

  it('ignores unknown fields, like FastAPI', async () => {
    await ask({ query: 'Where does Bob Smith live?', context_only: true, temperature: 0.3 }, a.apiKey.key).expect(200);
  });

  it('answers bodies over 64 KiB with 413 and malformed JSON with 422', async () => {
    const big = await ask({ query: 'x'.repeat(65 * 1024) }, a.apiKey.key);
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ detail: expect.stringContaining('64 KiB') });
    const malformed = await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .set('Content-Type', 'application/json')
      .send('{"query": ');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ type: 'json_invalid' });
  });

  it('never returns a superseded fact, in any mode', async () => {
    const c = await createTenantWithPeople(t.app);
    const documents = t.app.get(DocumentsService);
    await documents.submit(c.tenant.id, { name: 'old.txt', mimeType: 'text/plain', text: 'Alice works at Acme since 2023.' });
    await t.app.get(IngestWorker).drain();
    await documents.submit(c.tenant.id, { name: 'new.txt', mimeType: 'text/plain', text: 'In March 2024, Alice joined Globex.' });
    await t.app.get(IngestWorker).drain();
    for (const mode of ['mix', 'local', 'global', 'hybrid']) {
      const response = await ask(
        { query: 'Where does Alice work?', mode, context_only: true, hl_keywords: ['works at', 'joined'], ll_keywords: ['Alice', 'Acme', 'Globex'] },
        c.apiKey.key,
      ).expect(200);
      const relations = response.body.context.relations.map((r: { source: string; target: string }) => `${r.source}->${r.target}`);
      expect(relations).toContain('Alice->Globex');
      expect(relations).not.toContain('Alice->Acme');
    }
  });

  it('never lets tenant B see tenant A, in any mode', async () => {
    for (const mode of ['mix', 'local', 'global', 'naive', 'hybrid']) {
      const response = await ask(
        { query: 'Where does Alice Johnson work?', mode, context_only: true, hl_keywords: ['employment'], ll_keywords: ['Alice Johnson'] },
        b.apiKey.key,
      ).expect(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('Alice');
      expect(text).not.toContain('Acme');
    }
  });
});
