import { randomUUID } from 'node:crypto';
import { GraphsRepository } from '@loci/db';
import { CallContext } from '@loci/llm';
import { GbQueryService } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

/**
 * gb query's lexical passage channel (BM25 over the dataset's chunks, not the contract's), on the
 * embedded default: the hashing embedder's vectors rarely reach the contract's cosine of 0.75
 * against a chunk, so without it a long text remembered offline gave no passage at all.
 */
describe('gb query passages by BM25 (offline)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  // Paragraphs of plain, unrelated prose: the text runs past one chunk (300 tokens), so it is chunked.
  const filler = [
    'The village market opens every Saturday morning. Farmers bring apples, cheese and bread from the valley, and the square fills with stalls until noon.',
    'The old railway line was closed decades ago. Walkers now follow the track through the forest, past the ruined station and over the iron bridge.',
    'The library keeps a collection of maps drawn by local surveyors. Some show roads that were never built and rivers that have since changed course.',
    'A choir rehearses in the church hall on Tuesday evenings. Its members come from three towns and sing mostly folk songs and hymns.',
    'The harbour was rebuilt after a storm broke the western wall. Fishing boats moor there in winter, and ferries leave for the islands in summer.',
    'The school garden grows beans, potatoes and sunflowers. Pupils water it during the holidays, taking turns by the week.',
    'The museum shows tools used by weavers, blacksmiths and potters, with a loom that still works and is run on the first Sunday of each month.',
    'A footpath climbs from the river to the hilltop chapel. On a clear day the view reaches the coast and the mountains beyond the plain.',
  ];
  const rare = (owner: string) =>
    `The Quillfeather observatory keeps a brass heliograph named Marisol, restored by the Tennant brothers (${owner}).`;
  const longText = (owner: string) => [...filler, ...filler.slice(0, 4).reverse(), rare(owner)].join('\n\n');
  const question = 'Who restored the brass heliograph of the Quillfeather observatory?';

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const remember = (key: string, body: object) => t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${key}`).send(body).expect(200);
  const query = (key: string, body: object) => t.http.post('/v1/gb/query').set('Authorization', `Bearer ${key}`).send(body).expect(200);

  /** The passages gb query gives the answerer (the contract's step 2), as the route's service retrieves them. */
  async function contextPassages(tenantId: string, userId: string) {
    const graph = await t.app.get(GraphsRepository).findGbGraph(tenantId, userId, 'main');
    const ctx = new CallContext(tenantId, `retrieve-${randomUUID()}`, 'query');
    const context = await t.app.get(GbQueryService).retrieve(ctx, { tenantId, graphId: graph!.id }, question, (_name, work) => work());
    return context.passages;
  }

  it('gives the chunk of a long text that shares rare words with the question as a passage, with its text', async () => {
    const remembered = await remember(a.apiKey.key, { user_id: 'lexical-owner', text: longText('owner') });
    const passages = await contextPassages(a.tenant.id, 'lexical-owner');
    expect(passages.length).toBeGreaterThan(0);
    expect(passages[0].text).toContain('Quillfeather observatory');
    expect(passages[0].chunk.documentId).toBe(remembered.body.artifact_id);
    expect(passages[0].chunk.index).toBeGreaterThan(0); // the text was chunked: the paragraph is not in its first chunk

    // Through the route: the offline answerer answers from it (it may cite the fact extracted from
    // the same sentence rather than the passage, so the answer is what is checked).
    const response = await query(a.apiKey.key, { user_id: 'lexical-owner', query: question });
    expect(response.body.answer).toContain('Tennant brothers');
  });

  it('finds no passage by the vectors alone: the contract channel on the hashing embedder (LOCI_GB_LEXICAL_CHUNKS=0)', async () => {
    await remember(a.apiKey.key, { user_id: 'vectors-only', text: longText('vectors only') });
    const service = t.app.get(GbQueryService);
    const before = service.settings.lexicalChunks;
    service.settings.lexicalChunks = 0;
    try {
      expect(await contextPassages(a.tenant.id, 'vectors-only')).toEqual([]);
    } finally {
      service.settings.lexicalChunks = before;
    }
    expect((await contextPassages(a.tenant.id, 'vectors-only'))[0].text).toContain('(vectors only)');
  });

  it("never gives another end user's or another tenant's chunks, whatever words they share", async () => {
    // The same rare words in three memories: tenant A's two end users, and tenant B's user with the same user_id.
    const mine = await remember(a.apiKey.key, { user_id: 'iso-user', text: longText('mine') });
    await remember(a.apiKey.key, { user_id: 'iso-neighbour', text: longText('neighbour') });
    const theirs = await remember(b.apiKey.key, { user_id: 'iso-user', text: longText('other tenant') });

    const passages = await contextPassages(a.tenant.id, 'iso-user');
    expect(passages.length).toBeGreaterThan(0);
    expect(new Set(passages.map((p) => p.chunk.documentId))).toEqual(new Set([mine.body.artifact_id]));
    const seen = JSON.stringify(await query(a.apiKey.key, { user_id: 'iso-user', query: question }).then((r) => r.body));
    expect(seen).toContain('(mine)');
    expect(seen).not.toContain('neighbour');
    expect(seen).not.toContain('other tenant');

    const other = await contextPassages(b.tenant.id, 'iso-user');
    expect(new Set(other.map((p) => p.chunk.documentId))).toEqual(new Set([theirs.body.artifact_id]));
    const theirView = JSON.stringify(await query(b.apiKey.key, { user_id: 'iso-user', query: question }).then((r) => r.body));
    expect(theirView).toContain('(other tenant)');
    expect(theirView).not.toContain('(mine)');
    expect(theirView).not.toContain('neighbour');
  });
});
