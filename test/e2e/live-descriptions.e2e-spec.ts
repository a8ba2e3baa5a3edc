import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 40.4: descriptions follow the live facts. After "Alice works at Acme since 2023." and
 * "In March 2024, Alice joined Globex." the works_at fact is superseded, but Alice's merged
 * description kept the first sentence (and the default offline answer to "Where does Alice
 * work?" quoted it). Both paths that write the graph (gb remember, documents) are checked, each
 * for its own tenant.
 */
const BEFORE = 'Alice works at Acme since 2023.';
const AFTER = 'In March 2024, Alice joined Globex.';

describe('entity descriptions follow the live facts (offline default)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
  });
  afterAll(() => t.close());

  it('gb: a superseded fact leaves the description of the entity the new text names, and the offline answer', async () => {
    const { apiKey } = await createTenantWithPeople(t.app);
    const remember = (text: string) => t.http.post('/v1/gb/remember').set('X-API-Key', apiKey.key).send({ user_id: 'u', text }).expect(200);
    await remember(BEFORE);
    const second = await remember(AFTER);
    expect(second.body.edges).toEqual(expect.arrayContaining([expect.objectContaining({ relation: 'works_at', change: 'superseded' })]));
    const alice = (second.body.entities as Array<{ name: string; description: string; change: string }>).find((e) => e.name === 'Alice');
    expect(alice).toMatchObject({ description: AFTER, change: 'updated' });

    const answer = await t.http.post('/v1/gb/query').set('X-API-Key', apiKey.key).send({ user_id: 'u', query: 'Where does Alice work?' }).expect(200);
    // The offline answer follows the live fact: it quoted the superseded sentence beside it.
    expect(answer.body.answer).toContain('Globex');
    expect(answer.body.answer).not.toContain(BEFORE);
    // History asked for keeps it.
    const history = await t.http.post('/v1/gb/query').set('X-API-Key', apiKey.key).send({ user_id: 'u', query: 'Where did Alice work at Acme?', include_history: true }).expect(200);
    expect(history.body.answer).toContain('Acme');
    const evidence = answer.body.evidence.entities as Array<{ name: string; description: string }>;
    expect(evidence.find((e) => e.name === 'Alice')?.description).toBe(AFTER);
  });

  it('documents: the dashboard answer and the entity as the graph browse shows it follow the live fact', async () => {
    const people = await createTenantWithPeople(t.app);
    const documents = t.app.get(DocumentsService);
    await documents.submit(people.tenant.id, { name: 'then.txt', mimeType: 'text/plain', text: BEFORE });
    await t.app.get(IngestWorker).drain();
    await documents.submit(people.tenant.id, { name: 'now.txt', mimeType: 'text/plain', text: AFTER });
    await t.app.get(IngestWorker).drain();

    const answer = await t.http.post('/v1/query').set('Authorization', `Bearer ${people.member.token}`).send({ query: 'Where does Alice work?' }).expect(200);
    expect(answer.body.answer).toContain('Globex');
    expect(answer.body.answer).not.toContain(BEFORE);
    const found = await t.http.get('/v1/entities?q=Alice').set('Authorization', `Bearer ${people.member.token}`).expect(200);
    expect(found.body.items.find((e: { name: string }) => e.name === 'Alice')?.description).toBe(AFTER);

    // Streamed with its sources: the first event offers only the passages the answer was written
    // from. The passage that states nothing but the superseded fact was withheld from it, so it is
    // not offered either (it was, and a citation of it could never resolve).
    const stream = await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${people.member.token}`)
      .send({ query: 'Where does Alice work?', include_sources: true, stream: true })
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => done(null, text));
      })
      .expect(200);
    const events = (stream.body as string).split('\n\n').filter((block) => block.startsWith('event: '));
    const sourcesEvent = events.find((block) => block.startsWith('event: sources'))!;
    const offered = (JSON.parse(sourcesEvent.slice(sourcesEvent.indexOf('data: ') + 6)) as { sources: Array<{ excerpt: string }> }).sources;
    expect(offered.map((source) => source.excerpt)).toEqual([AFTER]);
    const whole = await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${people.member.token}`)
      .send({ query: 'Where does Alice work?', include_sources: true })
      .expect(200);
    expect(whole.body.sources.map((source: { excerpt: string }) => source.excerpt)).toEqual([AFTER]);
  });
});
