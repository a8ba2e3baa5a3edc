import { DocumentsService, IngestWorker } from '@loci/ingest';
import { StageRunner } from '@loci/llm';
import { QuestionTurns } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** An app with `slots` question slots and two tenants, A (Alice at Acme) and B (Bob at Globex), ingested. */
async function twoTenantsWithSlots(slots: number, env: Record<string, string> = {}) {
  const t = await startTestApp({ LOCI_QUESTIONS_AT_ONCE: String(slots), ...env });
  const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  const documents = t.app.get(DocumentsService);
  await documents.submit(a.tenant.id, { name: 'a.txt', mimeType: 'text/plain', text: 'Alice works at Acme in Berlin.' });
  await documents.submit(b.tenant.id, { name: 'b.txt', mimeType: 'text/plain', text: 'Bob works at Globex in Paris.' });
  await t.app.get(IngestWorker).drain();
  return { t, a, b, turns: t.app.get(QuestionTurns) };
}

/**
 * Questions take turns across tenants for their retrieval (QuestionTurns), on both question
 * surfaces, on the stores the environment selects. With one slot held, tenant A queues three
 * questions and then B one; when the slot frees, B's goes first: first come, first served
 * would answer it last. (The noisy-neighbour bench measures what this does under a flood.)
 */
describe('questions take turns across tenants', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let turns: QuestionTurns;

  beforeAll(async () => {
    ({ t, a, b, turns } = await twoTenantsWithSlots(1));
  });
  afterAll(() => t.close());

  /** Holds the only slot, as a long question of A's would, until the returned function is called. */
  const holdTheSlot = async () => {
    let release!: () => void;
    const held = turns.take(a.tenant.id, () => new Promise<void>((resolve) => (release = resolve)));
    await until(() => release !== undefined, 'the slot');
    return () => {
      release();
      return held;
    };
  };

  it("answers B's /v1/query before A's questions queued ahead of it", async () => {
    const free = await holdTheSlot();
    const order: string[] = [];
    const ask = (who: string, key: string) =>
      t.http
        .post('/v1/query')
        .set('X-API-Key', key)
        .send({ query: 'Who works where?', context_only: true })
        .then((response) => {
          expect(response.status).toBe(200);
          order.push(who);
        });
    const asked = [ask('a1', a.apiKey.key), ask('a2', a.apiKey.key), ask('a3', a.apiKey.key)];
    await until(() => turns.waiting === 3, "A's three questions at the gate");
    asked.push(ask('b', b.apiKey.key));
    await until(() => turns.waiting === 4, "B's question at the gate");
    await free();
    await Promise.all(asked);
    expect(order[0]).toBe('b');
    expect(order).toHaveLength(4);
  });

  it("does an API-key question's offline keywords and local embedding in its turn, not before it", async () => {
    const stages = t.app.get(StageRunner);
    const keywords = jest.spyOn(stages, 'offlineKeywords');
    const free = await holdTheSlot();
    try {
      // No keyword lists: the offline extractor finds them, on the CPU pool, before the embedding.
      const pending = t.http.post('/v1/query').set('X-API-Key', b.apiKey.key).send({ query: 'Where does Bob work?', context_only: true });
      const answered = pending.then((response) => response);
      await until(() => turns.waiting === 1, "B's question at the gate");
      // Before its turn B's question has spent no CPU on its keywords: a flood's questions, each
      // waiting here, cost the others nothing but their place in line.
      expect(keywords).not.toHaveBeenCalled();
      await free();
      const response = await answered;
      expect(response.status).toBe(200);
      expect(keywords).toHaveBeenCalledWith('Where does Bob work?');
      expect(JSON.stringify(response.body)).toContain('Globex');
    } finally {
      await free();
      keywords.mockRestore();
    }
  });

  it('gb query takes the same turns', async () => {
    await t.http.post('/v1/gb/remember').set('X-API-Key', b.apiKey.key).send({ user_id: 'u', text: 'Carol lives in Rome.' }).expect(200);
    const free = await holdTheSlot();
    const pending = t.http.post('/v1/gb/query').set('X-API-Key', b.apiKey.key).send({ user_id: 'u', query: 'Where does Carol live?' });
    const answered = pending.then((response) => response);
    await until(() => turns.waiting === 1, 'the gb question at the gate');
    await free();
    const response = await answered;
    expect(response.status).toBe(200);
    expect(JSON.stringify(response.body)).toContain('Rome');
    expect(JSON.stringify(response.body)).not.toContain('Acme');
  });
});

/**
 * One tenant may hold all slots but one: with two, A's flood holds one and B's question is
 * answered at once beside it, while A's next question waits for A's own slot.
 */
describe("a tenant's share of the question slots", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let turns: QuestionTurns;

  beforeAll(async () => {
    ({ t, a, b, turns } = await twoTenantsWithSlots(2));
  });
  afterAll(() => t.close());

  it("answers B while A holds its share, and keeps A's next question waiting for A's own slot", async () => {
    let release!: () => void;
    const held = turns.take(a.tenant.id, () => new Promise<void>((resolve) => (release = resolve)));
    await until(() => release !== undefined, "A's slot");
    try {
      let aAnswered = false;
      const aNext = t.http
        .post('/v1/query')
        .set('X-API-Key', a.apiKey.key)
        .send({ query: 'Where does Alice work?', context_only: true })
        .then((response) => {
          aAnswered = true;
          return response;
        });
      await until(() => turns.waiting === 1, "A's second question at the gate");
      // The second slot is free, but it is not A's to take: B's question gets it at once.
      const answered = await t.http.post('/v1/query').set('X-API-Key', b.apiKey.key).send({ query: 'Where does Bob work?', context_only: true });
      expect(answered.status).toBe(200);
      expect(JSON.stringify(answered.body)).toContain('Globex');
      expect(aAnswered).toBe(false);
      expect(turns.waiting).toBe(1);
      release();
      const response = await aNext;
      expect(response.status).toBe(200);
      expect(JSON.stringify(response.body)).toContain('Acme');
    } finally {
      release();
      await held;
    }
  });
});

/**
 * Between its statements, a question of a tenant with more waiting pauses while a tenant with
 * none waiting has one running (least attained service first): beside a flood, B's question
 * shares the cores with none of A's statements but those already sent. The pause is bounded
 * (LOCI_QUESTION_PAUSE_MAX_MS, long here so the test sees it hold).
 */
describe("a flood's question pauses between its statements for a lighter tenant's", () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let turns: QuestionTurns;

  beforeAll(async () => {
    ({ t, a, b, turns } = await twoTenantsWithSlots(3, { LOCI_QUESTION_PAUSE_MAX_MS: '60000' }));
  });
  afterAll(() => t.close());

  it("holds A's running question at a statement while B's runs, and lets it finish once B's is done", async () => {
    let releaseB!: () => void;
    const heldByB = turns.take(b.tenant.id, () => new Promise<void>((resolve) => (releaseB = resolve)));
    await until(() => releaseB !== undefined, "B's slot");
    const answered: string[] = [];
    const asked = ['a1', 'a2', 'a3'].map((name) =>
      t.http
        .post('/v1/query')
        .set('X-API-Key', a.apiKey.key)
        .send({ query: 'Where does Alice work?', context_only: true })
        .then((response) => {
          expect(response.status).toBe(200);
          expect(JSON.stringify(response.body)).toContain('Acme');
          answered.push(name);
        }),
    );
    try {
      // Beside B, A's share is one of three slots: one question runs, two wait; the one running
      // reaches its first statement and pauses there, because A has more waiting and B none.
      // (A question sends some of its statements at once: each waits.)
      await until(() => turns.waiting === 2 && turns.paused > 0, "A's running question paused at its statements");
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toEqual([]);
      expect(turns.paused).toBeGreaterThan(0);
    } finally {
      releaseB();
      await heldByB;
    }
    await Promise.all(asked);
    expect(answered).toHaveLength(3);
    expect(turns.paused).toBe(0);
  });
});
