import { GraphsRepository } from '@loci/db';
import { CallContext } from '@loci/llm';
import { GB_NO_INFORMATION_ANSWER, GbQueryService } from '@loci/retrieval';
import { createTenantWithPeople, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface EdgeJson {
  id: number;
  target_id: number;
  source?: string;
  target?: string;
  relation: string;
  change?: string;
  history?: string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The contract's Alice/Acme/Globex story, remembered as it happens: each text is remembered
 * with `valid_at` = the moment it was told, so the instants between the calls are instants of
 * both time axes (true then, and recorded then). Returns the three instants and the two facts.
 */
type Remembered = { body: { edges: EdgeJson[]; entities: Array<{ id: number; name: string }> } };
async function tellTheStory(remember: (body: object) => Promise<Remembered>, userId: string) {
  const before = new Date();
  await pause(15);
  const first = await remember({ user_id: userId, text: 'Alice works at Acme.', valid_at: new Date().toISOString() });
  await pause(15);
  const atAcme = new Date();
  await pause(15);
  const second = await remember({ user_id: userId, text: 'Alice joined Globex.', valid_at: new Date().toISOString() });
  await pause(15);
  const atGlobex = new Date();
  const idOf = (r: Remembered, name: string) => r.body.entities.find((e) => e.name === name)?.id;
  const acme = first.body.edges.find((e) => e.target_id === idOf(first, 'Acme'))!;
  const globex = second.body.edges.find((e) => e.target_id === idOf(second, 'Globex') && e.change === 'created')!;
  expect(acme).toBeDefined();
  expect(globex).toBeDefined();
  // Remembering Globex superseded Acme: the story the contract says `query` could not tell.
  expect(second.body.edges.find((e) => e.id === acme.id)?.change).toBe('superseded');
  return { before, atAcme, atGlobex, acme, globex };
}

/** POST /v1/gb/query with as_of and include_history, on the embedded default (extractive answers). */
describe('POST /v1/gb/query: as_of and include_history', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let story: Awaited<ReturnType<typeof tellTheStory>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    story = await tellTheStory((body) => remember(body), 'story');
  });
  afterAll(() => t.close());

  const remember = (body: object, key = a.apiKey.key) =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${key}`).send(body).expect(200);
  const query = (body: object, key = a.apiKey.key) => t.http.post('/v1/gb/query').set('Authorization', `Bearer ${key}`).send(body);
  const edgeIds = (body: { evidence: { edges: EdgeJson[] } }) => body.evidence.edges.map((e) => e.id);

  it.each([
    [{ as_of: 'yesterday' }, 'as_of must be an ISO-8601 date-time'],
    [{ as_of: '2024-06-01' }, 'as_of must be an ISO-8601 date-time'],
    [{ as_of: '2024-06-01T00:00:00' }, 'with a time zone'],
    [{ as_of: 1717200000 }, 'as_of must be an ISO-8601 date-time'],
    [{ include_history: 'yes' }, 'include_history must be a boolean'],
  ])('answers %j with 400 {"error": ...}', async (extra, message) => {
    const response = await query({ user_id: 'story', query: 'Where does Alice work?', ...extra }).expect(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toContain(message);
  });

  it('answers the story at three instants: before it, while at Acme, after joining Globex', async () => {
    // What Loci knew at each instant about that instant: valid time and record time together.
    const asked = (asOf: Date) =>
      query({ user_id: 'story', query: 'Where does Alice work?', as_of: asOf.toISOString(), known_at: asOf.toISOString() }).expect(200);

    const before = await asked(story.before);
    expect(before.body).toEqual({ answer: GB_NO_INFORMATION_ANSWER, evidence: { entities: [], edges: [], passages: [] } });

    const atAcme = await asked(story.atAcme);
    expect(atAcme.body.answer).toContain('Acme');
    expect(atAcme.body.answer).not.toContain('Globex');
    expect(edgeIds(atAcme.body)).toEqual([story.acme.id]);
    // The fact as stored: superseded since, which the evidence says (the contract's fields).
    expect(atAcme.body.evidence.edges[0]).toHaveProperty('expired_at');
    expect(atAcme.body.evidence.edges[0]).not.toHaveProperty('history');
    expect(JSON.stringify(atAcme.body.evidence.entities)).not.toContain('Globex');

    const atGlobex = await asked(story.atGlobex);
    // (Entity descriptions keep what was said of them, so Acme may still be mentioned; the fact is Globex.)
    expect(atGlobex.body.answer).toContain('Globex');
    expect(edgeIds(atGlobex.body)).not.toContain(story.acme.id);

    // What retrieval gives the answerer at each instant: the one fact true then.
    const graph = await t.app.get(GraphsRepository).findGbGraph(a.tenant.id, 'story', 'main');
    const factsAt = async (asOf: Date) => {
      const ctx = new CallContext(a.tenant.id, `as-of-${asOf.getTime()}`, 'query');
      const context = await t.app.get(GbQueryService).retrieve(ctx, { tenantId: a.tenant.id, graphId: graph!.id, asOf, knownAt: asOf }, 'Where does Alice work?', (_n, work) => work());
      return context.edges.map((e) => `${e.relation} ${e.target}`);
    };
    expect(await factsAt(story.before)).toEqual([]);
    expect(await factsAt(story.atAcme)).toEqual(['works_at Acme']);
    expect(await factsAt(story.atGlobex)).toEqual(['joined Globex']);

    // Without as_of: now, exactly as before (the live fact only).
    const now = await query({ user_id: 'story', query: 'Where does Alice work?' }).expect(200);
    expect(now.body.answer).toContain('Globex');
    expect(edgeIds(now.body)).not.toContain(story.acme.id);
  });

  it('answers "where did Alice work before?" from history, marking the superseded fact', async () => {
    const without = await query({ user_id: 'story', query: 'Where did Alice work before?' }).expect(200);
    expect(edgeIds(without.body)).not.toContain(story.acme.id);

    const response = await query({ user_id: 'story', query: 'Where did Alice work before?', include_history: true }).expect(200);
    expect(response.body.answer).toContain('Acme');
    const acme = (response.body.evidence.edges as EdgeJson[]).find((e) => e.id === story.acme.id);
    expect(acme).toMatchObject({ target: 'Acme', history: 'superseded', expired_at: expect.any(String), invalid_at: expect.any(String) });
    for (const edge of response.body.evidence.edges as EdgeJson[]) if (edge.id !== story.acme.id) expect(edge).not.toHaveProperty('history');

    // At an instant before the supersession there was no history yet: Acme is live then, unmarked.
    const earlier = await query({ user_id: 'story', query: 'Where did Alice work before?', include_history: true, as_of: story.atAcme.toISOString(), known_at: story.atAcme.toISOString() }).expect(200);
    expect(edgeIds(earlier.body)).toEqual([story.acme.id]);
    expect(earlier.body.evidence.edges[0]).not.toHaveProperty('history');
  });

  it('keeps tenants apart at an instant: tenant B sees nothing of tenant A', async () => {
    const asOf = new Date().toISOString();
    await query({ user_id: 'story', query: 'Where does Alice work?', as_of: asOf }, b.apiKey.key).expect(404);
    await remember({ user_id: 'story', text: 'Frank plays chess.' }, b.apiKey.key);
    for (const body of [
      { user_id: 'story', query: 'Where does Alice work?', as_of: new Date().toISOString() },
      { user_id: 'story', query: 'Where did Alice work before?', as_of: new Date().toISOString(), include_history: true },
      { user_id: 'story', query: 'Where did Alice work before?', include_history: true },
    ]) {
      const response = await query(body, b.apiKey.key).expect(200);
      const text = JSON.stringify(response.body);
      expect(text).not.toContain('Acme');
      expect(text).not.toContain('Globex');
    }
    // And A, at its own instants, never sees B's fact.
    const mine = await query({ user_id: 'story', query: 'Who plays chess?', as_of: new Date().toISOString(), include_history: true }).expect(200);
    expect(JSON.stringify(mine.body)).not.toContain('Frank');
  });
});

/** The prompt at an instant and with history: the real SDK against the loopback double. */
describe('POST /v1/gb/query: as_of and include_history with an LLM', () => {
  let double: LlmDouble;
  let t: TestApp;
  let a: Tenant;
  let story: Awaited<ReturnType<typeof tellTheStory>>;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
    });
    a = await createTenantWithPeople(t.app);
    story = await tellTheStory(
      (body) => t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${a.apiKey.key}`).send(body).expect(200),
      'hist',
    );
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const query = (body: object) => t.http.post('/v1/gb/query').set('Authorization', `Bearer ${a.apiKey.key}`).send(body);
  const promptOf = (body: Record<string, unknown>) => JSON.stringify(body.messages);

  it('gives the model the instant as the time and only what was true then', async () => {
    double.anthropic.reply({ text: JSON.stringify({ answer: 'Acme.', entities: [], edges: [story.acme.id], passages: [] }) });
    const atAcme = story.atAcme.toISOString();
    const response = await query({ user_id: 'hist', query: 'Where does Alice work?', as_of: atAcme, known_at: atAcme }).expect(200);
    const [request] = double.anthropic.requests;
    const instant = atAcme.replace(/\.\d{3}Z$/, 'Z');
    expect(promptOf(request.body)).toContain(`<current_time>${instant}</current_time>`);
    expect(promptOf(request.body)).toContain(`<known_at>${instant}</known_at>`);
    expect(String(request.body.system)).toContain('<current_time> is the instant the question is about');
    expect(String(request.body.system)).toContain('<known_at> is the instant the memory is read as of');
    expect(promptOf(request.body)).toContain(`[edge ${story.acme.id}] Alice`);
    expect(promptOf(request.body)).not.toContain('Globex');
    expect(response.body.evidence.edges.map((e: EdgeJson) => e.id)).toEqual([story.acme.id]);
  });

  it('marks history in the prompt and in the evidence; without the options the prompt is the contract\'s', async () => {
    double.anthropic.reply({ text: JSON.stringify({ answer: 'Acme.', entities: [], edges: [story.acme.id, story.globex.id], passages: [] }) });
    const response = await query({ user_id: 'hist', query: 'Where did Alice work before?', include_history: true }).expect(200);
    const [request] = double.anthropic.requests;
    expect(promptOf(request.body)).toMatch(new RegExp(`\\[edge ${story.acme.id}\\] Alice[^\\]]*--> Acme[^\\n]*history=superseded\\]`));
    expect(String(request.body.system)).toContain('history=superseded');
    const edges = response.body.evidence.edges as EdgeJson[];
    expect(edges.find((e) => e.id === story.acme.id)).toMatchObject({ history: 'superseded' });
    expect(edges.find((e) => e.id === story.globex.id)).not.toHaveProperty('history');

    double.reset();
    double.anthropic.reply({ text: JSON.stringify({ answer: 'Globex.', entities: [], edges: [], passages: [] }) });
    await query({ user_id: 'hist', query: 'Where did Alice work before?' }).expect(200);
    const plain = double.anthropic.requests[0];
    expect(String(plain.body.system)).toContain('- <current_time> is the time now.');
    expect(String(plain.body.system)).not.toContain('history=');
    expect(promptOf(plain.body)).not.toContain(`[edge ${story.acme.id}]`);
  });
});
