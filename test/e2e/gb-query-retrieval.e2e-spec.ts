import { randomUUID } from 'node:crypto';
import { Database, DATABASE, GraphWritesRepository, InferencesRepository } from '@loci/db';
import { CallContext, ModelGateway, OwnKeysService } from '@loci/llm';
import { LIMIT_STORE, LimitStore, limitKeys, utcDay } from '@loci/quota';
import { GbContext, GbEdge, GbEntity, GbQueryService } from '@loci/retrieval';
import {
  createApiKey,
  createGbGraph,
  createTenant,
  GbGraphFixture,
  insertGbChunks,
  insertGbEdges,
  insertGbEntities,
  LlmDouble,
  recordStatements,
  startLlmDouble,
  vectorAtSimilarity,
} from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * gb query retrieval (the contract's steps 1–2) on graphs written straight into the store, with
 * the scores, timestamps and vectors each rule needs, so every assertion is the contract's
 * exact outcome: keyword ranking, the fallback, the one-hop cap over live facts, the 0.75
 * threshold and the 3 + 5 passages; then the 503 and 413 of its error table.
 */
describe('gb query retrieval on the store', () => {
  let t: TestApp;
  let tenantId: string;
  let service: GbQueryService;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    tenantId = (await createTenant(t.app)).id;
    service = t.app.get(GbQueryService);
  });
  afterAll(() => t.close());

  const minutes = (n: number) => new Date(Date.UTC(2025, 0, 1) + n * 60_000);

  /** `GbQueryService.retrieve`, keeping what each step produced. */
  async function retrieve(g: GbGraphFixture, question: string) {
    const produced = new Map<string, unknown>();
    const ctx = new CallContext(g.tenantId, `retrieve-${randomUUID()}`, 'query');
    const context: GbContext = await service.retrieve(ctx, g.scope, question, async (name, work) => {
      const value = await work();
      produced.set(name, value);
      return value;
    });
    const expanded = produced.get('expand') as { fallback: boolean; seeds: number };
    return { context, keywordSeeds: produced.get('keyword_seeds') as GbEntity[], fallback: expanded.fallback };
  }

  /** The question's vector as the service embeds it (the local embedder is deterministic). */
  async function questionVector(question: string): Promise<number[]> {
    const { vectors } = await t.app.get(ModelGateway).embed(new CallContext(tenantId, `embed-${randomUUID()}`, 'query'), [question]);
    return vectors[0];
  }

  const names = (list: Array<{ name: string }>) => list.map((e) => e.name);
  const ids = (list: Array<{ id: number }>) => list.map((e) => e.id);
  const sortedIds = (list: Array<{ id: number }>) => ids(list).sort((a, b) => a - b);

  it('scores keywords as the contract says and takes the top 10, ties to the most recently updated', async () => {
    const g = await createGbGraph(t.app, tenantId, 'keywords');
    // Terms, in order: alice writes rust acme new york work compilers databases kernels parsers
    // linkers (12). Dropped: stopwords (where, does, who, at, in, tell, me, about, and), "q"
    // (shorter than 2), the second "alice" (duplicate), and "zephyr" (the 13th term).
    const question =
      'Where does Alice, who writes Rust at Acme in New York, work? Alice! Tell me about Q, compilers, databases, kernels, parsers, linkers and zephyr.';
    // [name, description, updated at (minutes), score by the contract]
    const fixtures: Array<[string, string | null, number, number]> = [
      ['New York', null, 1, 5 + 3 + 3], // whole name + new + york
      ['Alice', 'engineer who writes Rust', 2, 5 + 3 + 1 + 1], // whole name + alice; writes, rust in the description (once: duplicates dropped)
      ['Acme Rust Works', null, 3, 3 + 3 + 3], // acme, rust, work ("works")
      ['York', null, 4, 5 + 3], // whole name + york
      ['Parsers & Linkers Ltd', null, 5, 3 + 3],
      // Six at 3: the five most recently updated are seeds, "Compilers Guild" (oldest) is not.
      ['Newark', null, 40, 3], // new
      ['Bob', 'writes Rust at Acme', 30, 1 + 1 + 1],
      ['Compilers Guild', null, 10, 3],
      ['Database Kernels', null, 20, 3], // kernels ("databases" is not in "database")
      ['Carol', 'works on databases and compilers', 50, 1 + 1 + 1],
      ['Rust Belt', null, 35, 3],
      // Below the top 10, although updated most recently.
      ['Dave', 'maintains parsers', 90, 1],
      ['Erin', 'likes linkers', 91, 1],
      ['Frank', 'Acme', 92, 1],
      // No score: not candidates at all.
      ['Kernel Club', null, 93, 0], // "kernels" is not in "kernel club"
      ['Zephyrus', null, 94, 0], // zephyr was the 13th term
      ['Qwerty', null, 95, 0], // "q" is shorter than 2
      ['Whereabouts', null, 96, 0], // where and about are stopwords
      ['Unrelated Person', 'plays chess', 97, 0],
    ];
    const rows = await insertGbEntities(
      t.app,
      g,
      fixtures.map(([name, description, at]) => ({ name, description, updatedAt: minutes(at) })),
    );
    expect(rows).toHaveLength(fixtures.length);

    // The contract's ranking: score desc, then most recently updated.
    const expected = fixtures
      .filter(([, , , score]) => score > 0)
      .sort((a, b) => b[3] - a[3] || b[2] - a[2])
      .slice(0, 10);
    const { keywordSeeds, fallback } = await retrieve(g, question);
    expect(keywordSeeds.map((e) => [e.name, e.score])).toEqual(expected.map(([name, , , score]) => [name, score]));
    // Spelled out, so the expectation does not only rest on the sort above.
    expect(names(keywordSeeds)).toEqual([
      'New York',
      'Alice',
      'Acme Rust Works',
      'York',
      'Parsers & Linkers Ltd',
      'Carol',
      'Newark',
      'Rust Belt',
      'Bob',
      'Database Kernels',
    ]);
    expect(fallback).toBe(false);
  });

  it('falls back to the 25 most recently updated entities when nothing matched, and only then', async () => {
    const g = await createGbGraph(t.app, tenantId, 'fallback');
    // Thirty entities whose recency is not their insertion order (7 is coprime with 30).
    const rows = await insertGbEntities(
      t.app,
      g,
      Array.from({ length: 30 }, (_, i) => ({ name: `Entity ${String(i).padStart(2, '0')}`, updatedAt: minutes((i * 7) % 30) })),
    );
    const byRecency = [...rows].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
    const newest25 = byRecency.slice(0, 25);

    const vague = 'What do you know?'; // only stopwords: no term
    const unmatched = 'Anything about quantum chromodynamics?'; // terms that match nothing
    for (const question of [vague, unmatched]) {
      const { context, keywordSeeds, fallback } = await retrieve(g, question);
      expect(keywordSeeds).toEqual([]);
      expect(fallback).toBe(true);
      expect(sortedIds(context.entities)).toEqual(sortedIds(newest25));
    }

    // A fact under the threshold is not similar: still the fallback.
    const [oldest, secondOldest] = [byRecency[29], byRecency[28]];
    const q = await questionVector(unmatched);
    await insertGbEdges(t.app, g, [{ sourceId: oldest.id, targetId: secondOldest.id, relation: 'knows', embedding: vectorAtSimilarity(q, 0.74) }]);
    const under = await retrieve(g, unmatched);
    expect(under.fallback).toBe(true);
    expect(sortedIds(under.context.entities)).toEqual(sortedIds(newest25));
    expect(under.context.edges).toEqual([]);

    // A similar fact (>= 0.75): no fallback; the fact and its two endpoints are the context.
    const [fact] = await insertGbEdges(t.app, g, [
      { sourceId: secondOldest.id, targetId: oldest.id, relation: 'likes', embedding: vectorAtSimilarity(q, 0.8, 7) },
    ]);
    const similar = await retrieve(g, unmatched);
    expect(similar.fallback).toBe(false);
    expect(ids(similar.context.edges)).toEqual([fact.id]);
    expect(sortedIds(similar.context.entities)).toEqual(sortedIds([oldest, secondOldest]));
  });

  it('caps the one hop at 100 live edges, newest first, never a superseded one, plus the similar facts', async () => {
    const g = await createGbGraph(t.app, tenantId, 'cap');
    const question = 'Who is Sigmund Sequoia connected to?';
    const q = await questionVector(question);
    const [seed, xavier, yolanda] = await insertGbEntities(t.app, g, [{ name: 'Sigmund Sequoia' }, { name: 'Xavier' }, { name: 'Yolanda' }]);
    const nodes = await insertGbEntities(t.app, g, Array.from({ length: 105 }, (_, i) => ({ name: `Node ${i + 1}` })));
    const olds = await insertGbEntities(t.app, g, Array.from({ length: 20 }, (_, i) => ({ name: `Old ${i + 1}` })));

    // 105 live edges around the seed (as source or target), created in an order unlike their
    // ids (11 is coprime with 105); every third one ended without being superseded (invalid_at
    // only): still live. The oldest is also a similar fact (0.85), so it comes in past the cap.
    const createdOffset = (i: number) => (i * 16) % 105;
    const oldestIndex = nodes.findIndex((_, i) => createdOffset(i) === 0);
    const live = await insertGbEdges(
      t.app,
      g,
      nodes.map((node, i) => ({
        sourceId: i % 2 ? seed.id : node.id,
        targetId: i % 2 ? node.id : seed.id,
        relation: 'knows',
        createdAt: minutes(1000 + createdOffset(i)),
        invalidAt: i % 3 === 0 ? minutes(5000) : null,
        embedding: i === oldestIndex ? vectorAtSimilarity(q, 0.85, 3) : null,
      })),
    );
    // 20 superseded edges, newer than every live one; one of them is the question's own vector.
    const superseded = await insertGbEdges(
      t.app,
      g,
      olds.map((old, i) => ({
        sourceId: seed.id,
        targetId: old.id,
        relation: 'worked_with',
        createdAt: minutes(2000 + i),
        invalidAt: minutes(2500),
        expiredAt: minutes(2500),
        embedding: i === 0 ? q : null,
      })),
    );
    const byNewest = [...live].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const oldestLive = byNewest[byNewest.length - 1];
    expect(oldestLive.id).toBe(live[oldestIndex].id);
    // The other similar fact, away from the seed.
    const [away] = await insertGbEdges(t.app, g, [
      { sourceId: xavier.id, targetId: yolanda.id, relation: 'met', embedding: vectorAtSimilarity(q, 0.9) },
    ]);

    const { context, keywordSeeds } = await retrieve(g, question);
    expect(names(keywordSeeds)).toEqual(['Sigmund Sequoia']);
    // The 100 newest live edges around the seed, newest first; then the similar facts.
    expect(ids(context.edges.slice(0, 100))).toEqual(ids(byNewest.slice(0, 100)));
    expect(sortedIds(context.edges.slice(100))).toEqual([away.id, oldestLive.id].sort((a, b) => a - b));
    expect(context.edges).toHaveLength(102);
    const inContext = new Set(ids(context.edges));
    for (const edge of superseded) expect(inContext.has(edge.id)).toBe(false);
    for (const edge of byNewest.slice(100, 104)) expect(inContext.has(edge.id)).toBe(false);
    expect(context.edges.every((edge: GbEdge) => edge.expiredAt === null)).toBe(true);
    // Ended (invalid_at, not superseded) edges count among the live ones.
    expect(context.edges.filter((edge) => edge.invalidAt !== null).length).toBeGreaterThan(0);

    // Entities: the seed, the other end of every edge given, the similar facts' endpoints.
    const expectedEntities = new Set<number>([seed.id, xavier.id, yolanda.id]);
    for (const edge of [...byNewest.slice(0, 100), oldestLive]) {
      expectedEntities.add(edge.sourceId);
      expectedEntities.add(edge.targetId);
    }
    expect(sortedIds(context.entities)).toEqual([...expectedEntities].sort((a, b) => a - b));
    expect(names(context.entities).some((name) => name.startsWith('Old '))).toBe(false);
  });

  it('counts a vector match from a cosine similarity of 0.75', async () => {
    const g = await createGbGraph(t.app, tenantId, 'threshold');
    const question = 'Which quasar emits ultraviolet photons?';
    const q = await questionVector(question);
    const [alpha, beta, gamma, delta, epsilon, zeta] = await insertGbEntities(t.app, g, [
      { name: 'Alpha', embedding: vectorAtSimilarity(q, 0.751) },
      { name: 'Beta', embedding: vectorAtSimilarity(q, 0.749, 1) },
      { name: 'Gamma' },
      { name: 'Delta' },
      { name: 'Epsilon' },
      { name: 'Zeta' },
    ]);
    const [over, under] = await insertGbEdges(t.app, g, [
      { sourceId: gamma.id, targetId: delta.id, relation: 'orbits', embedding: vectorAtSimilarity(q, 0.751, 2) },
      { sourceId: epsilon.id, targetId: zeta.id, relation: 'orbits', embedding: vectorAtSimilarity(q, 0.749, 3) },
    ]);
    const [chunkOver] = await insertGbChunks(t.app, g, [
      { index: 0, text: 'over', summary: 'over, summarized', embedding: vectorAtSimilarity(q, 0.751, 4), summaryEmbedding: vectorAtSimilarity(q, 0, 5) },
      { index: 1, text: 'under', summary: 'under, summarized', embedding: vectorAtSimilarity(q, 0, 6), summaryEmbedding: vectorAtSimilarity(q, 0.749, 7) },
    ]);

    const { context, keywordSeeds, fallback } = await retrieve(g, question);
    expect(keywordSeeds).toEqual([]);
    expect(fallback).toBe(false);
    expect(sortedIds(context.entities)).toEqual(sortedIds([alpha, gamma, delta]));
    expect(ids(context.edges)).toEqual([over.id]);
    expect(context.passages.map((p) => p.chunk.id)).toEqual([chunkOver.id]);
    expect(ids(context.entities)).not.toContain(beta.id);
    expect(ids(context.edges)).not.toContain(under.id);
  });

  it('sends each of its four vector searches as one statement, with no transaction or SET around it', async () => {
    const g = await createGbGraph(t.app, tenantId, 'statements');
    const question = 'Which pulsar spins fastest?';
    const q = await questionVector(question);
    const [a, b] = await insertGbEntities(t.app, g, [{ name: 'Pulsar A', embedding: vectorAtSimilarity(q, 0.9) }, { name: 'Pulsar B' }]);
    await insertGbEdges(t.app, g, [{ sourceId: a.id, targetId: b.id, relation: 'outspins', embedding: vectorAtSimilarity(q, 0.9, 1) }]);
    await insertGbChunks(t.app, g, [{ index: 0, text: 'spins', summary: 'spins, summarized', embedding: vectorAtSimilarity(q, 0.9, 2) }]);

    const recorder = recordStatements(t.app);
    let context: GbContext;
    try {
      ({ context } = await retrieve(g, question));
    } finally {
      recorder.stop();
    }
    expect(ids(context.edges).length).toBe(1);
    expect(recorder.texts.filter((text) => text.includes('<=>'))).toHaveLength(4);
    // No search inside an open transaction or right after a SET on its connection. Other work of
    // the process in the window (the worker's claims, a statistics refresh) runs its own
    // transactions, on other connections or on a pooled one before the search took it.
    expect(searchesInTransactionOrAfterSet(recorder.sent)).toEqual([]);
  });

  it('gives the best 3 passages with their text, then up to 5 more found by summary, with the summary only', async () => {
    const g = await createGbGraph(t.app, tenantId, 'passages');
    const question = 'What did the committee decide about the harbour?';
    const q = await questionVector(question);
    // [index, similarity of the chunk text, of its summary]; 0 = orthogonal (no match).
    const design: Array<[number, number, number]> = [
      [1, 0.95, 0], // best 3, text only (its summary was not found)
      [2, 0.9, 0.97], // best 3, text and summary
      [3, 0.85, 0], // found by text only, past the best 3: left out
      [4, 0.84, 0.8], // past the best 3, found by summary too: summary only
      [5, 0.83, 0], // text only, past the best 3: left out
      [6, 0.82, 0], // 6th of the text index: not among its best 5
      [7, 0, 0.88], // best 3 (by its summary): text and summary
      [8, 0, 0.86], // summary only
      [9, 0.7, 0], // under 0.75
      [10, 0, 0.79], // summary only
      [11, 0, 0.78], // 6th of the summary index: not among its best 5
      [12, 0, 0.74], // under 0.75
    ];
    const rows = await insertGbChunks(
      t.app,
      g,
      design.map(([index, text, summary]) => ({
        index,
        text: `text ${index}`,
        summary: `summary ${index}`,
        embedding: vectorAtSimilarity(q, text, index),
        summaryEmbedding: vectorAtSimilarity(q, summary, 100 + index),
      })),
    );
    const idOf = (index: number) => rows.find((row) => row.index === index)!.id;

    const { context } = await retrieve(g, question);
    expect(context.passages.map((p) => ({ id: p.chunk.id, text: p.text, summary: p.summary }))).toEqual([
      { id: idOf(2), text: 'text 2', summary: 'summary 2' },
      { id: idOf(1), text: 'text 1', summary: undefined },
      { id: idOf(7), text: 'text 7', summary: 'summary 7' },
      { id: idOf(8), text: undefined, summary: 'summary 8' },
      { id: idOf(4), text: undefined, summary: 'summary 4' },
      { id: idOf(10), text: undefined, summary: 'summary 10' },
    ]);
  });

  it("remembers a large dataset's BM25 corpus (N, avgdl) between questions, as /v1/query does: the next question does not count its chunks", async () => {
    const g = await createGbGraph(t.app, tenantId, 'bm25-corpus');
    // From 200 chunks (REMEMBER_CORPUS_FROM_CHUNKS) a graph's N and avgdl are remembered for a minute.
    await insertGbChunks(t.app, g, Array.from({ length: 200 }, (_, index) => ({ index, text: `filler ${index}` })));
    const text = 'The Quillfeather observatory keeps a brass heliograph, restored by the Tennant brothers.';
    const rare = await t.app.get(GraphWritesRepository).insertChunk(
      t.app.get<Database>(DATABASE).db,
      { tenantId, graphId: g.graphId, documentId: g.documentId, index: 200, text, tokenCount: 20 },
      text,
    );
    const question = 'Who restored the brass heliograph of the Quillfeather observatory?';
    const ask = async () => {
      const recorder = recordStatements(t.app);
      try {
        const { context } = await retrieve(g, question);
        return { passages: context.passages, lexical: recorder.texts.filter((text) => text.includes('corpus AS MATERIALIZED')) };
      } finally {
        recorder.stop();
      }
    };
    const counts = (statement: string) => /count\(\*\)::float8 AS n/.test(statement);

    const first = await ask();
    expect(first.passages[0].chunk.id).toBe(rare.id);
    expect(first.lexical).toHaveLength(1);
    expect(counts(first.lexical[0])).toBe(true);
    const second = await ask();
    expect(second.lexical).toHaveLength(1);
    expect(counts(second.lexical[0])).toBe(false);
    expect(second.passages).toEqual(first.passages);
  });

  describe('the request body limit (64 KiB)', () => {
    /** A gb query body of exactly `bytes` bytes of JSON. */
    const bodyOf = (bytes: number) => {
      const head = '{"user_id":"limit","query":"Where does Alice work?';
      const tail = '"}';
      return head + ' '.repeat(bytes - head.length - tail.length) + tail;
    };

    it('accepts 64 KiB and answers 413 {"error"} past it', async () => {
      const apiKey = await createApiKey(t.app, tenantId);
      await t.http
        .post('/v1/gb/remember')
        .set('Authorization', `Bearer ${apiKey.key}`)
        .send({ user_id: 'limit', text: 'Alice works at Acme.' })
        .expect(200);
      const post = (raw: string) =>
        t.http.post('/v1/gb/query').set('Authorization', `Bearer ${apiKey.key}`).set('Content-Type', 'application/json').send(raw);

      const atLimit = bodyOf(64 * 1024);
      expect(Buffer.byteLength(atLimit)).toBe(65_536);
      const accepted = await post(atLimit).expect(200);
      expect(accepted.body.answer).toEqual(expect.any(String));

      const over = await post(bodyOf(64 * 1024 + 1)).expect(413);
      expect(over.body).toEqual({ error: expect.stringContaining('64 KiB') });
    });
  });
});

/**
 * The contract's 503 "LLM not configured". With no provider key at all Loci answers with the
 * offline local provider instead (DESIGN.md), so a 503 takes a query stage routed to a provider
 * that cannot be called: the operator named Anthropic for it (behind a gateway URL) without a
 * platform key, or the tenant pays with its own key and has none for it.
 */
describe('gb query without a configured answer model', () => {
  let double: LlmDouble;
  let t: TestApp;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ANTHROPIC_API_KEY: undefined,
      ANTHROPIC_BASE_URL: double.anthropicBaseUrl,
      OPENAI_API_KEY: undefined,
      LOCI_QUERY_MODEL: 'anthropic:claude-haiku-4-5',
      LOCI_LLM_MAX_RETRIES: '0',
    });
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  async function tenantWithMemory(billing: 'platform' | 'own_key') {
    const tenant = await createTenant(t.app, { billing });
    const apiKey = await createApiKey(t.app, tenant.id);
    await t.http
      .post('/v1/gb/remember')
      .set('Authorization', `Bearer ${apiKey.key}`)
      .send({ user_id: 'u', text: 'Alice Johnson works at Acme Corporation.' })
      .expect(200);
    return { tenant, apiKey };
  }

  const ask = (key: string) =>
    t.http.post('/v1/gb/query').set('Authorization', `Bearer ${key}`).send({ user_id: 'u', query: 'Where does Alice Johnson work?' });

  async function spentToday(tenantId: string): Promise<number> {
    const store = t.app.get<LimitStore>(LIMIT_STORE);
    return store.committed(limitKeys.tenantSpendDay(tenantId, utcDay(await store.now())));
  }

  it.each([['platform' as const], ['own_key' as const]])('answers 503 {"error"} and charges nothing (%s billing, no key)', async (billing) => {
    const { tenant, apiKey } = await tenantWithMemory(billing);
    const before = await spentToday(tenant.id);
    const response = await ask(apiKey.key).expect(503);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toEqual(expect.any(String));
    expect(double.anthropic.requests).toHaveLength(0);
    const calls = await t.app.get(InferencesRepository).listByRequest(tenant.id, response.headers['x-request-id']);
    expect(calls.reduce((sum, call) => sum + call.costMicros, 0)).toBe(0);
    expect(calls.filter((call) => call.stage === 'query' && call.status === 'ok')).toEqual([]);
    expect(await spentToday(tenant.id)).toBe(before);
  });

  it('answers once the tenant has a key for that model (the same setup otherwise)', async () => {
    const { tenant, apiKey } = await tenantWithMemory('own_key');
    await t.app.get(OwnKeysService).setKey(tenant.id, 'anthropic', 'tenant-key');
    double.anthropic.reply({ text: '{"answer":"Acme Corporation.","entities":[],"edges":[],"passages":[]}' });
    const response = await ask(apiKey.key).expect(200);
    expect(response.body.answer).toBe('Acme Corporation.');
    expect(double.anthropic.requests).toHaveLength(1);
  });
});

/** The vector searches (`<=>`) sent while their connection had a transaction open, or right after a SET on it. */
function searchesInTransactionOrAfterSet(sent: ReadonlyArray<{ text: string; connection: object }>): string[] {
  const open = new Set<object>();
  const last = new Map<object, string>();
  const wrong: string[] = [];
  for (const { text, connection } of sent) {
    if (text.includes('<=>') && (open.has(connection) || /^\s*set\b/i.test(last.get(connection) ?? ''))) wrong.push(text);
    if (/^\s*begin\b/i.test(text)) open.add(connection);
    if (/^\s*(commit|rollback)\b/i.test(text)) open.delete(connection);
    last.set(connection, text);
  }
  return wrong;
}
