import { EdgeRow, GraphReadsRepository, GraphsRepository } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** POST /v1/gb/remember on the embedded default (local provider). */
describe('POST /v1/gb/remember', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const remember = (body: unknown, key = a.apiKey.key) =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${key}`).send(body as object);

  it('puts the text into the user dataset and reports what it created', async () => {
    const response = await remember({ user_id: 'u1', text: 'Alice Johnson works at Acme Corporation.', session_id: 'chat-42' }).expect(200);
    expect(response.body).toMatchObject({ artifact_id: expect.any(Number), dataset: 'main', session_id: 'chat-42', duplicate: false });
    const names = response.body.entities.map((e: { name: string; change: string }) => [e.name, e.change]);
    expect(names).toEqual(expect.arrayContaining([['Alice Johnson', 'created'], ['Acme Corporation', 'created']]));
    const [edge] = response.body.edges;
    expect(edge).toMatchObject({ relation: 'works_at', change: 'created', artifact_id: response.body.artifact_id });
    expect(edge.valid_at).toEqual(expect.any(String));
    expect(edge.created_at).toEqual(expect.any(String));
    expect(edge).not.toHaveProperty('expired_at');
  });

  it('supersedes a fact replaced by a newer one, with all four temporal fields', async () => {
    await remember({ user_id: 'alice-history', text: 'Alice works at Acme since 2023.' }).expect(200);
    const second = await remember({ user_id: 'alice-history', text: 'In March 2024, Alice joined Globex.' }).expect(200);

    const superseded = second.body.edges.find((e: { change: string }) => e.change === 'superseded');
    const created = second.body.edges.find((e: { change: string }) => e.change === 'created');
    expect(superseded).toMatchObject({ relation: 'works_at', valid_at: '2023-01-01T00:00:00.000Z', invalid_at: '2024-03-01T00:00:00.000Z' });
    expect(superseded.expired_at).toEqual(expect.any(String));
    expect(created).toMatchObject({ relation: 'joined', valid_at: '2024-03-01T00:00:00.000Z' });
    expect(created).not.toHaveProperty('invalid_at');
    expect(created).not.toHaveProperty('expired_at');

    // The old row stays, closed; the live fact is Globex.
    const graph = await t.app.get(GraphsRepository).findGbGraph(a.tenant.id, 'alice-history', 'main');
    const { edges, entities } = await t.app.get(GraphReadsRepository).graphContents(a.tenant.id, graph!.id);
    const name = (id: number) => entities.find((e) => e.id === id)!.name;
    const live = edges.filter((e: EdgeRow) => e.expiredAt === null).map((e) => `${e.relation} ${name(e.targetId)}`);
    expect(live).toEqual(['joined Globex']);
    expect(edges).toHaveLength(2);
    expect(entities.filter((e) => e.name === 'Alice')).toHaveLength(1);
  });

  it('ends a fact the text says ended, without superseding it', async () => {
    await remember({ user_id: 'bob-history', text: 'Bob works at Initech since 2020.' }).expect(200);
    const left = await remember({ user_id: 'bob-history', text: 'Bob left Initech in 2022.' }).expect(200);
    const ended = left.body.edges.find((e: { change: string }) => e.change === 'ended');
    expect(ended).toMatchObject({ relation: 'works_at', invalid_at: '2022-01-01T00:00:00.000Z' });
    expect(ended).not.toHaveProperty('expired_at');
  });

  it('merges a repeated fact instead of duplicating it', async () => {
    await remember({ user_id: 'repeat', text: 'Carol lives in Lisbon.' }).expect(200);
    const again = await remember({ user_id: 'repeat', text: 'Carol lives in Lisbon. She likes the city.' }).expect(200);
    expect(again.body.edges).toEqual([expect.objectContaining({ relation: 'lives_in', change: 'updated' })]);
  });

  it('treats the same text remembered twice as a duplicate', async () => {
    const first = await remember({ user_id: 'dup', text: 'Dan plays for Ajax.' }).expect(200);
    const second = await remember({ user_id: 'dup', text: 'Dan plays for Ajax.' }).expect(200);
    expect(second.body).toMatchObject({ artifact_id: first.body.artifact_id, duplicate: true, entities: [], edges: [] });
  });

  it('keeps datasets and tenants apart', async () => {
    await remember({ user_id: 'shared-id', text: 'Erin works at Vandelay Industries.' }).expect(200);
    await remember({ user_id: 'shared-id', dataset: 'work', text: 'Frank works at Kramerica.' }).expect(200);
    const graphs = t.app.get(GraphsRepository);
    expect(await graphs.findGbGraph(b.tenant.id, 'shared-id', 'main')).toBeUndefined();
    await remember({ user_id: 'shared-id', text: 'Erin works at Vandelay Industries.' }, b.apiKey.key).expect(200);
    const inA = await graphs.findGbGraph(a.tenant.id, 'shared-id', 'main');
    const inB = await graphs.findGbGraph(b.tenant.id, 'shared-id', 'main');
    expect(inA!.id).not.toBe(inB!.id);
    const reads = t.app.get(GraphReadsRepository);
    const aEntities = (await reads.graphContents(a.tenant.id, inA!.id)).entities;
    const bEntities = (await reads.graphContents(b.tenant.id, inB!.id)).entities;
    expect(aEntities.map((e) => e.id)).not.toEqual(expect.arrayContaining(bEntities.map((e) => e.id)));
    // tenant B's reads of tenant A's graph find nothing
    expect((await reads.graphContents(b.tenant.id, inA!.id)).entities).toEqual([]);
    const work = await graphs.findGbGraph(a.tenant.id, 'shared-id', 'work');
    expect((await reads.graphContents(a.tenant.id, work!.id)).entities.map((e) => e.name)).not.toContain('Erin');
  });

  it.each([
    [{ text: 'x' }, 'user_id is required'],
    [{ user_id: 'u', text: '' }, 'text must not be empty'],
    [{ user_id: 'u' }, 'text is required'],
    [{ user_id: 'u', text: 'x', session_id: 'x'.repeat(129) }, 'session_id must be at most 128 bytes'],
    [{ user_id: 'u', text: 'x', session_id: 'a\nb' }, 'control characters'],
    [{ user_id: 'u', text: 'x', reasoning: 'loud' }, 'unknown reasoning level "loud"'],
    [{ user_id: 'u', text: 'x', reasoning: { query: 'low' } }, 'unknown stage "query"'],
    [{ user_id: 'u', text: 'x', reasoning: 3 }, 'reasoning must be'],
    [{ user_id: 'u', text: 'x', models: { detect_geo: 'claude-haiku-4-5' } }, 'unknown stage "detect_geo"'],
    [{ user_id: 'u', text: 'x', models: { extract: 'no such model!' } }, 'malformed model name'],
    [{ user_id: 'u', text: 'x', models: { extract: 'gpt-unknown-9' } }, 'no known price'],
    [{ user_id: 'u', text: 'x', valid_at: 'yesterday' }, 'valid_at must be an ISO-8601'],
    [{ user_id: 'u', text: 'x', dataset: 'no spaces allowed' }, 'dataset must be'],
  ])('answers %j with 400 {"error": ...}', async (body, message) => {
    const response = await remember(body).expect(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toContain(message);
  });

  it('accepts reasoning levels case-insensitively and per stage', async () => {
    await remember({ user_id: 'levels', text: 'Gina works at Wayne Enterprises.', reasoning: { extract: 'NONE', summarize: 'Low' } }).expect(200);
  });

  it('answers malformed JSON and bodies over 1 MiB in the gb shape', async () => {
    const malformed = await t.http
      .post('/v1/gb/remember')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .set('Content-Type', 'application/json')
      .send('{"user_id": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: expect.any(String) });
    const huge = await remember({ user_id: 'u', text: 'x'.repeat(1024 * 1024 + 1) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ error: expect.stringContaining('1 MiB') });
  });

  it('needs credentials of the tenant', async () => {
    const response = await t.http.post('/v1/gb/remember').send({ user_id: 'u', text: 'x' }).expect(401);
    expect(response.body).toEqual({ error: expect.any(String) });
  });
});
