import { DocumentsService, IngestWorker } from '@loci/ingest';
import { RequestLogsRepository } from '@loci/db';
import { createTenantWithPeople, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Alice/Acme/Globex story as two documents ingested one after the other (each fact valid
 * from its document's load time): the instant before, between and after the two ingestions.
 */
async function ingestTheStory(t: TestApp, tenantId: string) {
  const documents = t.app.get(DocumentsService);
  const worker = t.app.get(IngestWorker);
  const before = new Date();
  await pause(15);
  await documents.submit(tenantId, { name: 'acme.txt', mimeType: 'text/plain', text: 'Alice works at Acme.' });
  await worker.drain();
  await pause(15);
  const atAcme = new Date();
  await pause(15);
  await documents.submit(tenantId, { name: 'globex.txt', mimeType: 'text/plain', text: 'Alice joined Globex.' });
  await worker.drain();
  await pause(15);
  return { before, atAcme, atGlobex: new Date() };
}

const KEYWORDS = { hl_keywords: ['works at', 'joined'], ll_keywords: ['Alice', 'Acme', 'Globex'] };

/** What Loci knew at an instant about that instant: valid time (as_of) and record time (known_at) together. */
const then = (instant: Date) => ({ as_of: instant.toISOString(), known_at: instant.toISOString() });

/** POST /v1/query with as_of and known_at, on the embedded default (local provider). */
describe('POST /v1/query: as_of', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let story: Awaited<ReturnType<typeof ingestTheStory>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    story = await ingestTheStory(t, a.tenant.id);
  });
  afterAll(() => t.close());

  const ask = (body: object, token = a.apiKey.key) => t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send(body);
  const relationsOf = (body: { context: { relations: Array<{ source: string; target: string }> } }) =>
    body.context.relations.map((r) => `${r.source}->${r.target}`);

  it.each(['yesterday', '2024-06-01', '2024-06-01T00:00:00', 1717200000])('answers as_of %j with 422 {"detail": [...]}', async (asOf) => {
    const response = await ask({ query: 'Where does Alice work?', as_of: asOf }).expect(422);
    expect(Object.keys(response.body)).toEqual(['detail']);
    expect(response.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'as_of'], msg: expect.stringContaining('valid datetime') })]);
  });

  it('answers the story at three instants, in every graph mode, and records the instant', async () => {
    for (const mode of ['mix', 'local', 'global', 'hybrid']) {
      const at = (asOf: Date) => ask({ query: 'Where does Alice work?', mode, context_only: true, ...KEYWORDS, ...then(asOf) }).expect(200);

      // The graph has documents now, none yet then: not an empty graph (issue 40.5).
      const before = await at(story.before);
      expect(before.body.metadata.no_answer_reason).toBe('empty_at_known_at');

      const atAcme = await at(story.atAcme);
      expect(relationsOf(atAcme.body)).toEqual(['Alice->Acme']);
      expect(atAcme.body.context.chunks.map((c: { document_name: string }) => c.document_name)).toEqual(['acme.txt']);
      expect(JSON.stringify(atAcme.body.context)).not.toContain('Globex');

      const atGlobex = await at(story.atGlobex);
      expect(relationsOf(atGlobex.body)).toContain('Alice->Globex');
      expect(relationsOf(atGlobex.body)).not.toContain('Alice->Acme');
    }
    const logged = await ask({ query: 'Where does Alice work?', context_only: true, ...KEYWORDS, ...then(story.atAcme) }).expect(200);
    const log = await t.app.get(RequestLogsRepository).byRequestId(a.tenant.id, logged.headers['x-request-id']);
    expect(log.steps).toMatchObject({ as_of: story.atAcme.toISOString(), known_at: story.atAcme.toISOString() });
  });

  it('sees only chunks recorded by known_at in naive mode, and answers a dashboard question from them', async () => {
    const naive = await ask({ query: 'Alice Globex Acme', mode: 'naive', context_only: true, ...then(story.atAcme) }).expect(200);
    expect(naive.body.context.chunks.map((c: { document_name: string }) => c.document_name)).toEqual(['acme.txt']);

    const answered = await ask({ query: 'Where does Alice work?', ...then(story.atAcme) }, a.member.token).expect(200);
    expect(answered.body.answer).toContain('Acme');
    expect(answered.body.answer).not.toContain('Globex');
  });

  it('without as_of answers now, as before', async () => {
    const response = await ask({ query: 'Where does Alice work?', context_only: true, ...KEYWORDS }).expect(200);
    expect(relationsOf(response.body)).toContain('Alice->Globex');
    expect(relationsOf(response.body)).not.toContain('Alice->Acme');
  });

  it('keeps tenants apart at an instant', async () => {
    for (const mode of ['mix', 'naive']) {
      const response = await ask({ query: 'Where does Alice work?', mode, context_only: true, ...KEYWORDS, as_of: new Date().toISOString() }, b.apiKey.key).expect(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('Acme');
      expect(text).not.toContain('Globex');
    }
  });
});

/** The answer prompt at an instant: the real SDK against the loopback double. */
describe('POST /v1/query: as_of with an LLM', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Tenant;
  let story: Awaited<ReturnType<typeof ingestTheStory>>;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    a = await createTenantWithPeople(t.app);
    story = await ingestTheStory(t, a.tenant.id);
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const ask = (body: object) => t.http.post('/v1/query').set('Authorization', `Bearer ${a.member.token}`).send(body);
  const answerPrompts = () =>
    double.anthropic.requests.filter((r) => String(r.body.system ?? '').includes('numbered sources')).map((r) => JSON.stringify(r.body.messages));

  it('gives the answer model the instant instead of now, and nothing learned after it', async () => {
    double.anthropic.reply((body) =>
      String(body.system ?? '').includes('search keywords')
        ? { text: '{"high_level":["employment"],"low_level":["Alice"]}' }
        : { text: '{"answer":"Alice works at Acme [1].","cited":["1"]}' },
    );
    const response = await ask({ query: 'Where does Alice work?', ...KEYWORDS, ...then(story.atAcme) }).expect(200);
    expect(response.body.answer).toBe('Alice works at Acme [1].');
    const [prompt] = answerPrompts();
    expect(prompt).toContain(`about ${story.atAcme.toISOString()}`);
    expect(prompt).toContain(`recorded by ${story.atAcme.toISOString()}`);
    expect(prompt).toContain('Acme');
    expect(prompt).not.toContain('Globex');

    double.reset();
    double.anthropic.reply({ text: '{"answer":"Globex.","cited":[]}' });
    await ask({ query: 'Where does Alice work?', ...KEYWORDS }).expect(200);
    expect(answerPrompts()[0]).not.toContain('The question is about');
    expect(answerPrompts()[0]).not.toContain('recorded by');
  });

  it('gives the instant to a streamed answer too', async () => {
    double.anthropic.reply((body) =>
      String(body.system ?? '').includes('search keywords')
        ? { text: '{"high_level":["employment"],"low_level":["Alice"]}' }
        : { text: 'Alice works at Acme [1].' },
    );
    const response = await ask({ query: 'Where does Alice work?', ...KEYWORDS, stream: true, ...then(story.atAcme) }).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const [prompt] = answerPrompts();
    expect(prompt).toContain(`about ${story.atAcme.toISOString()}`);
    expect(prompt).toContain(`recorded by ${story.atAcme.toISOString()}`);
    expect(prompt).not.toContain('Globex');
  });
});
