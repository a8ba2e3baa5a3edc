import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface EdgeJson {
  source?: string;
  target?: string;
  relation: string;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 36.1: the two times apart, on both question surfaces and the MCP tools. `as_of` is valid
 * time: what was true at that instant by everything Loci knows now, so a story remembered today
 * about 2020 and 2024 answers "where did Alice work in 2022?"; `known_at` is record time: only
 * what Loci had recorded by then. Both together: what Loci knew then about that instant. On the
 * stores the environment selects (the embedded default's offline extraction).
 */
describe('as_of (valid time) and known_at (record time)', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;
  let baseUrl: string;
  /** Record instants: before the story was told, between its two texts, after it. */
  let told: { before: Date; between: Date; after: Date };

  const IN_2020 = '2020-01-15T00:00:00Z';
  const IN_2022 = '2022-06-01T00:00:00Z';
  const IN_2024 = '2024-03-01T00:00:00Z';
  const IN_2025 = '2025-06-01T00:00:00Z';

  beforeAll(async () => {
    t = await startTestApp({});
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    const remember = (text: string, validAt: string) =>
      t.http.post('/v1/gb/remember').set('X-API-Key', a.apiKey.key).send({ user_id: 'alice-story', text, valid_at: validAt }).expect(200);
    const documents = t.app.get(DocumentsService);
    const worker = t.app.get(IngestWorker);

    // Both texts are told today; they speak of 2020 and 2024.
    const before = new Date();
    await pause(20);
    await remember('Alice works at Acme.', IN_2020);
    await documents.submit(a.tenant.id, { name: 'acme.txt', mimeType: 'text/plain', text: 'Alice works at Acme.', documentDate: new Date(IN_2020) });
    await worker.drain();
    await pause(20);
    const between = new Date();
    await pause(20);
    await remember('Alice joined Globex.', IN_2024);
    await documents.submit(a.tenant.id, { name: 'globex.txt', mimeType: 'text/plain', text: 'Alice joined Globex.', documentDate: new Date(IN_2024) });
    await worker.drain();
    await pause(20);
    told = { before, between, after: new Date() };
  });
  afterAll(() => t.close());

  const gbFacts = async (instants: { as_of?: string; known_at?: string }, key = a.apiKey.key) => {
    const response = await t.http.post('/v1/gb/query').set('X-API-Key', key).send({ user_id: 'alice-story', query: 'Where does Alice work?', ...instants });
    if (response.status === 404) return { status: 404, targets: [] as string[], answer: '' };
    expect(response.status).toBe(200);
    return { status: 200, targets: (response.body.evidence.edges as EdgeJson[]).map((e) => e.target ?? ''), answer: response.body.answer as string };
  };
  const KEYWORDS = { hl_keywords: ['works at', 'joined'], ll_keywords: ['Alice', 'Acme', 'Globex'] };
  const queryRelations = async (instants: { as_of?: string; known_at?: string }, key = a.apiKey.key) => {
    const response = await t.http
      .post('/v1/query')
      .set('X-API-Key', key)
      .send({ query: 'Where does Alice work?', context_only: true, ...KEYWORDS, ...instants })
      .expect(200);
    return {
      relations: ((response.body.context?.relations ?? []) as EdgeJson[]).map((r) => `${r.source}->${r.target}`),
      reason: response.body.metadata.no_answer_reason as string | null,
    };
  };

  it('gb query: as_of asks what was true then, by everything remembered since', async () => {
    const in2022 = await gbFacts({ as_of: IN_2022 });
    expect(in2022.targets).toContain('Acme');
    expect(in2022.targets).not.toContain('Globex');
    expect(in2022.answer).toContain('Acme');

    const in2025 = await gbFacts({ as_of: IN_2025 });
    expect(in2025.targets).toContain('Globex');
    expect(in2025.targets).not.toContain('Acme');
  });

  it('gb query: known_at reads the memory as it was recorded then; both together, what was known then about that instant', async () => {
    expect((await gbFacts({ known_at: told.between.toISOString() })).targets).toEqual(['Acme']);
    expect((await gbFacts({ known_at: told.after.toISOString() })).targets).toContain('Globex');
    // Before anything was remembered, the memory held nothing.
    const empty = await gbFacts({ known_at: told.before.toISOString() });
    expect(empty.targets).toEqual([]);
    // In between, Loci believed Alice would still be at Acme in 2025: the move was not yet told.
    expect((await gbFacts({ as_of: IN_2025, known_at: told.between.toISOString() })).targets).toEqual(['Acme']);
    expect((await gbFacts({ as_of: IN_2025, known_at: told.after.toISOString() })).targets).not.toContain('Acme');
  });

  it('/v1/query: as_of is valid time over documents dated in the past', async () => {
    expect((await queryRelations({ as_of: IN_2022 })).relations).toEqual(['Alice->Acme']);
    const in2025 = (await queryRelations({ as_of: IN_2025 })).relations;
    expect(in2025).toContain('Alice->Globex');
    expect(in2025).not.toContain('Alice->Acme');
    // Before either fact began, none was true; the documents are still there to read.
    expect((await queryRelations({ as_of: '2019-01-01T00:00:00Z' })).relations).toEqual([]);
  });

  it('/v1/query: known_at sees only what had been recorded, and says so when nothing had', async () => {
    expect((await queryRelations({ known_at: told.between.toISOString() })).relations).toEqual(['Alice->Acme']);
    expect((await queryRelations({ as_of: IN_2025, known_at: told.between.toISOString() })).relations).toEqual(['Alice->Acme']);
    expect((await queryRelations({ known_at: told.before.toISOString() })).reason).toBe('empty_at_known_at');
    const refused = await t.http.post('/v1/query').set('X-API-Key', a.apiKey.key).send({ query: 'Where?', known_at: '2024-06-01' }).expect(422);
    expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'known_at'] })]);
    await t.http.post('/v1/gb/query').set('X-API-Key', a.apiKey.key).send({ user_id: 'alice-story', query: 'Where?', known_at: 'yesterday' }).expect(400);
  });

  it('MCP tools take both instants', async () => {
    const client = new Client({ name: 'time-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': a.apiKey.key } } }));
    try {
      const text = async (name: string, args: Record<string, unknown>) =>
        ((await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> }).content[0].text;
      const query = JSON.parse(await text('query', { user_id: 'alice-story', query: 'Where does Alice work?', as_of: IN_2022 }));
      expect((query.evidence.edges as EdgeJson[]).map((e) => e.target)).toEqual(['Acme']);
      const ask = JSON.parse(await text('ask', { query: 'Where does Alice work?', ...KEYWORDS, known_at: told.between.toISOString() }));
      expect(JSON.stringify(ask.context.relations)).not.toContain('Globex');
    } finally {
      await client.close();
    }
  });

  it('keeps tenants apart at either instant', async () => {
    expect((await gbFacts({ as_of: IN_2022 }, b.apiKey.key)).status).toBe(404);
    const other = await queryRelations({ as_of: IN_2022 }, b.apiKey.key);
    expect(other.relations).toEqual([]);
    expect(JSON.stringify(await queryRelations({ known_at: told.after.toISOString() }, b.apiKey.key))).not.toContain('Acme');
  });
});
