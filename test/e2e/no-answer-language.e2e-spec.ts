import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, serverSentEvents } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import type { AddressInfo } from 'node:net';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

const CONTRACT_SENTENCE = 'Недостаточно данных для ответа.';
const ENGLISH_SENTENCE = 'Not enough data to answer.';

/**
 * The no-answer sentence of /v1/query (issue 40.5): the contract's Russian one by default, the
 * language a request's Accept-Language prefers among Loci's, else the tenant's `answer_language`
 * (its admins set it with PATCH /v1/tenant); and `no_answer_reason` saying why, truthfully.
 */
describe('POST /v1/query: the no-answer sentence in the tenant and request language', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const ask = (tenant: Tenant, headers: Record<string, string> = {}, body: object = {}, credential = tenant.apiKey.key) => {
    const request = t.http.post('/v1/query').set('Authorization', `Bearer ${credential}`);
    for (const [name, value] of Object.entries(headers)) request.set(name, value);
    return request.send({ query: 'Where does Alice work?', ...body }).expect(200);
  };
  const setLanguage = (tenant: Tenant, answer_language: unknown, token = tenant.admin.token) =>
    t.http.patch('/v1/tenant').set('Authorization', `Bearer ${token}`).send({ answer_language });

  it("answers an empty graph with the contract's sentence when nothing chooses another", async () => {
    const response = await ask(a);
    expect(response.body).toMatchObject({ answer: CONTRACT_SENTENCE, sources: [], metadata: { no_answer_reason: 'empty_graph' } });
    // A dashboard session too (the check comes before any model call).
    expect((await ask(a, {}, {}, a.member.token)).body.answer).toBe(CONTRACT_SENTENCE);
  });

  it.each([
    ['en-US,en;q=0.9', ENGLISH_SENTENCE],
    ['de-DE,de;q=0.9,en;q=0.8', ENGLISH_SENTENCE],
    ['ru', CONTRACT_SENTENCE],
    ['fr-FR', CONTRACT_SENTENCE],
    // No preference (fetch's default): the tenant's language, here the contract's.
    ['*', CONTRACT_SENTENCE],
  ])('honours Accept-Language %j among the languages Loci writes', async (acceptLanguage, sentence) => {
    expect((await ask(a, { 'Accept-Language': acceptLanguage })).body.answer).toBe(sentence);
    expect((await ask(a, { 'Accept-Language': acceptLanguage }, {}, a.member.token)).body.answer).toBe(sentence);
  });

  it("keeps a tenant's language, set by its admin, for every caller; a request's language comes first; other tenants keep theirs", async () => {
    const set = await setLanguage(a, 'en').expect(200);
    expect(set.body).toMatchObject({ id: a.tenant.id, answer_language: 'en' });
    expect((await t.http.get('/v1/tenant').set('Authorization', `Bearer ${a.admin.token}`).expect(200)).body.answer_language).toBe('en');

    expect((await ask(a)).body.answer).toBe(ENGLISH_SENTENCE);
    expect((await ask(a, {}, {}, a.member.token)).body.answer).toBe(ENGLISH_SENTENCE);
    expect((await ask(a, { 'Accept-Language': 'ru' })).body.answer).toBe(CONTRACT_SENTENCE);
    expect((await ask(b)).body.answer).toBe(CONTRACT_SENTENCE);

    // A stream carries the same sentence.
    const server = t.app.getHttpServer();
    if (!server.listening) await t.app.listen(0, '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    const streamed = await fetch(`http://127.0.0.1:${port}/v1/query`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.apiKey.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'Where does Alice work?', stream: true }),
    });
    const texts: string[] = [];
    for await (const { event, data } of serverSentEvents(streamed)) if (event === 'answer') texts.push(data.text);
    expect(texts.join('')).toBe(ENGLISH_SENTENCE);

    await setLanguage(a, null).expect(200);
    expect((await ask(a)).body.answer).toBe(CONTRACT_SENTENCE);
  });

  it('lets only a tenant admin change the setting, to a language Loci writes', async () => {
    await setLanguage(a, 'en', a.member.token).expect(403);
    await setLanguage(a, 'en', a.apiKey.key).expect(403);
    const refused = await setLanguage(a, 'fr').expect(400);
    expect(refused.body.error.code).toBe('validation_failed');
    expect((await t.http.patch('/v1/tenant').set('Authorization', `Bearer ${a.admin.token}`).send({ language: 'en' })).status).toBe(400);
    expect((await ask(a)).body.answer).toBe(CONTRACT_SENTENCE);
  });

  it('says nothing was recorded by known_at, not an empty graph, once it has documents; and empty_graph only when it has none', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    await t.app.get(DocumentsService).submit(b.tenant.id, { name: 'acme.txt', mimeType: 'text/plain', text: 'Alice works at Acme.' });
    await t.app.get(IngestWorker).drain();
    const then = await ask(b, {}, { known_at: before });
    expect(then.body).toMatchObject({ answer: CONTRACT_SENTENCE, metadata: { no_answer_reason: 'empty_at_known_at' } });
    const now = await ask(b, {}, { context_only: true });
    expect(now.body.metadata.no_answer_reason).toBeNull();
    // Tenant a uploaded nothing: at any instant its graph is simply empty.
    expect((await ask(a, {}, { as_of: before })).body.metadata.no_answer_reason).toBe('empty_graph');
  });
});
