import { RequestLogsRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 40.3: an API key's question is searched in the mode it asks for. Without both keyword
 * lists it used to run as `naive` (the contract's fallback, as keywords were a model call); its
 * keywords now come from the offline extractor, so `mix`, `local`, `global` and `hybrid` mean
 * what they say, `metadata.mode` is the mode used, and the platform's model is still never
 * called. The platform's model here is the loopback double (keywords and answer stages), so a
 * call to it would be seen; ingestion runs offline.
 */
const OFFLINE = 'local:local-nlp-v1';
const MODES = ['mix', 'local', 'global', 'hybrid'] as const;

describe('API-key questions honour their mode with offline keywords', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_EXTRACT_MODEL: OFFLINE,
      LOCI_SUMMARIZE_MODEL: OFFLINE,
      LOCI_EMBED_MODEL: 'local:local-hash-v1',
    });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    const documents = t.app.get(DocumentsService);
    await documents.submit(a.tenant.id, {
      name: 'staff.txt',
      mimeType: 'text/plain',
      text: 'Alice Johnson works at Acme Corporation in Berlin. Bob Smith lives in Paris. Acme Corporation acquired Globex in 2019.',
    });
    await documents.submit(b.tenant.id, { name: 'other.txt', mimeType: 'text/plain', text: 'Alice Johnson works at Zircon Labs in Oslo.' });
    await t.app.get(IngestWorker).drain();
    double.reset();
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });

  const ask = (body: object, key: string) => t.http.post('/v1/query').set('X-API-Key', key).send(body);

  it.each(MODES)('searches the graph in %s mode, says so, and calls no model', async (mode) => {
    const response = await ask({ query: 'Where does Alice Johnson work?', mode, context_only: true }, a.apiKey.key).expect(200);
    expect(response.body.metadata).toMatchObject({ mode, model: 'context-mode-no-llm', tokens_in: 0, tokens_out: 0 });
    const context = response.body.context as { entities: unknown[]; relations: unknown[] };
    // The graph was searched by the question's names: naive search returns passages only.
    const found = JSON.stringify([context.entities, context.relations]);
    expect(found).toContain('Alice Johnson');
    expect(found).toContain('Acme Corporation');
    expect(JSON.stringify(response.body)).not.toContain('Zircon'); // tenant B's graph
    const log = await t.app.get(RequestLogsRepository).byRequestId(a.tenant.id, response.headers['x-request-id']);
    expect(log.steps).toMatchObject({ mode_asked: mode, mode_used: mode, cost_micros: 0 });
    expect(double.requests).toEqual([]);
  });

  it('keeps naive as naive, and the keyword lists a client sends', async () => {
    const naive = await ask({ query: 'Where does Bob Smith live?', mode: 'naive', context_only: true }, a.apiKey.key).expect(200);
    expect(naive.body.metadata.mode).toBe('naive');
    expect(naive.body.context.relations).toEqual([]);
    const given = await ask({ query: 'Anything', mode: 'local', context_only: true, hl_keywords: [], ll_keywords: ['Bob Smith'] }, a.apiKey.key).expect(200);
    expect(JSON.stringify(given.body.context.entities)).toContain('Bob Smith');
    expect(double.requests).toEqual([]);
  });

  it('reads only the opening of a question of the largest size for its keywords', async () => {
    // 64 KiB of one sentence: the extractor over all of it held a CPU thread for minutes (past
    // this test's timeout); its keywords are in its opening words.
    const question = `Where does Alice Johnson work? ${'w '.repeat(32_000)}`.slice(0, 65_000);
    const response = await ask({ query: question, mode: 'mix', context_only: true }, a.apiKey.key).expect(200);
    expect(response.body.metadata.mode).toBe('mix');
    expect(JSON.stringify(response.body.context.entities)).toContain('Alice Johnson');
  });

  it('answers an MCP ask in its mode too, calling no model', async () => {
    const call = await t.http
      .post('/mcp')
      .set('X-API-Key', a.apiKey.key)
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ask', arguments: { query: 'Where does Alice Johnson work?', mode: 'local' } } })
      .expect(200);
    const result = JSON.parse(call.body.result.content[0].text) as { metadata: { mode: string }; context: { relations: unknown[] } };
    expect(result.metadata.mode).toBe('local');
    expect(JSON.stringify(result.context.relations)).toContain('Acme Corporation');
    expect(double.requests).toEqual([]);
  });

  it('still asks the platform model for a dashboard question’s keywords (the double is live)', async () => {
    double.anthropic.reply({ text: JSON.stringify({ high_level: ['employment'], low_level: ['Alice Johnson'] }) });
    await t.http.post('/v1/query').set('Authorization', `Bearer ${a.member.token}`).send({ query: 'Where does Alice Johnson work?', mode: 'local', context_only: true }).expect(200);
    expect(double.anthropic.requests.length).toBeGreaterThan(0);
  });
});
