import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** POST /v1/query with model providers: the real SDKs against the loopback double. */
describe('POST /v1/query with an LLM', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      // Extraction offline, so the graph holds real facts; the question stages use the double.
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      // The double's embeddings are pseudo-random, so no match would clear a similarity floor.
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    a = await createTenantWithPeople(t.app);
    await t.app.get(DocumentsService).submit(a.tenant.id, {
      name: 'staff.txt',
      mimeType: 'text/plain',
      text: 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris.',
    });
    await t.app.get(IngestWorker).drain();
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const ask = (body: object, token: string) => t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send(body);
  const chatCalls = () => double.anthropic.requests.length + double.openai.chat.requests.length;

  it('never calls a chat model for an API-key question, whatever the body says', async () => {
    for (const body of [
      { query: 'Where does Alice work?' },
      { query: 'Where does Alice work?', context_only: false, include_sources: true, mode: 'local' },
      { query: 'Where does Alice work?', context_only: true, hl_keywords: ['work'], ll_keywords: ['Alice'] },
    ]) {
      const response = await ask(body, a.apiKey.key).expect(200);
      expect(response.body.metadata.model).toBe('context-mode-no-llm');
    }
    expect(chatCalls()).toBe(0);
  });

  it('writes a dashboard answer with the answer model, resolving its citations', async () => {
    double.anthropic.reply((body) => {
      const system = String(body.system ?? '');
      if (system.includes('search keywords')) return { text: '{"high_level":["employment"],"low_level":["Alice"]}' };
      return { text: '{"answer":"Alice works at Acme Corporation [1].","cited":["1","7"]}', usage: { input_tokens: 500, output_tokens: 20 } };
    });
    const response = await ask({ query: 'Where does Alice work?', include_sources: true }, a.admin.token).expect(200);
    expect(response.body.answer).toBe('Alice works at Acme Corporation [1].');
    expect(response.body.sources).toEqual([expect.objectContaining({ reference_id: '1', document_name: 'staff.txt' })]);
    expect(response.body.metadata).toMatchObject({
      mode: 'mix',
      model: 'anthropic:claude-haiku-4-5',
      unresolved_sources_count: 1, // "7" named no source
      no_answer_reason: null,
    });
    expect(response.body.metadata.tokens_in).toBeGreaterThanOrEqual(500);
    expect(response.body.context).toBeNull();
    // keywords stage and answer stage: two chat calls
    expect(double.anthropic.requests).toHaveLength(2);
  });

  it('skips the keywords stage when both keyword lists are given, and the answer stage in context mode', async () => {
    const response = await ask(
      { query: 'Where does Alice work?', context_only: true, hl_keywords: ['employment'], ll_keywords: ['Alice'] },
      a.member.token,
    ).expect(200);
    expect(response.body.answer).toBe('');
    expect(response.body.context.entities.length + response.body.context.chunks.length).toBeGreaterThan(0);
    expect(chatCalls()).toBe(0);
  });

  it('maps a failing answer model to 502 in the FastAPI shape', async () => {
    double.anthropic.reply({ status: 500 });
    const response = await ask({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] }, a.member.token);
    expect(response.status).toBe(502);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });
});
