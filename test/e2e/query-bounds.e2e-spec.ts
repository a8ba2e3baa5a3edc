import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { countTokens } from '@loci/llm';
import { renderEntity, renderRelation } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 35: API clients bound what /v1/query returns with LightRAG's QueryParam names:
 * `top_k` (entities, and as many relations), `chunk_top_k` (chunks) and `max_total_tokens` (the
 * whole context as rendered for a model). Validated with FastAPI's 422s; left out, nothing
 * changes; the MCP `ask` tool takes them too. On the stores the environment selects.
 */
describe('bounded contexts for API clients', () => {
  let t: TestApp;
  let baseUrl: string;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let client: Client;

  const facts = [
    'Alice Johnson works at Acme Corporation in Berlin. Acme Corporation builds rockets for Globex.',
    'Bob Smith lives in Paris and works at Globex. Globex sells rockets to Initech in Madrid.',
    'Carol White manages Initech in Madrid. Initech bought Acme Corporation in 2021.',
    'Dan Brown founded Umbrella Labs in Oslo. Umbrella Labs supplies engines to Acme Corporation.',
    'Erin Green works at Umbrella Labs with Dan Brown. Erin Green was born in Lisbon.',
    'Frank Black audits Globex and Initech. Frank Black lives in Rome.',
  ];

  beforeAll(async () => {
    t = await startTestApp({});
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    const documents = t.app.get(DocumentsService);
    for (const [i, text] of facts.entries()) await documents.submit(a.tenant.id, { name: `doc-${i}.txt`, mimeType: 'text/plain', text });
    await documents.submit(b.tenant.id, { name: 'other.txt', mimeType: 'text/plain', text: 'Alice Johnson works at Zircon Labs in Oslo.' });
    await t.app.get(IngestWorker).drain();
    client = new Client({ name: 'bounds-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': a.apiKey.key } } }));
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  const QUESTION = 'Who works at Acme Corporation, Globex or Initech, and where do they live?';
  const ask = (body: object) => t.http.post('/v1/query').set('X-API-Key', a.apiKey.key).send({ query: QUESTION, context_only: true, ...body });
  type Context = {
    chunks: Array<{ text: string }>;
    entities: Array<{ name: string; type: string | null; description: string | null }>;
    relations: Array<{ source: string; target: string; description: string | null; keywords: string | null }>;
    truncated: boolean;
  };
  /** The context's tokens as the budget counts them, less each relation's name and dates (the API does not return them): a lower bound. */
  const tokensOf = (context: Context) =>
    context.entities.reduce((sum, e) => sum + countTokens(renderEntity(e)), 0) +
    context.relations.reduce(
      (sum, r) => sum + countTokens(renderRelation({ source: r.source, relation: '', target: r.target, description: r.description, validAt: null, invalidAt: null })),
      0,
    ) +
    context.chunks.reduce((sum, c) => sum + countTokens(c.text), 0);

  it.each(['mix', 'local', 'global', 'naive', 'hybrid'])('keeps at most chunk_top_k chunks and top_k entities and relations in %s mode', async (mode) => {
    const whole = (await ask({ mode }).expect(200)).body.context as Context;
    const bounded = (await ask({ mode, top_k: 1, chunk_top_k: 1 }).expect(200)).body.context as Context;
    expect(whole.chunks.length).toBeGreaterThan(1);
    expect(bounded.chunks).toHaveLength(1);
    // The best chunk stays the best: the bound keeps the head of the same ranking.
    expect(bounded.chunks[0].text).toBe(whole.chunks[0].text);
    expect(bounded.entities.length).toBeLessThanOrEqual(1);
    expect(bounded.relations.length).toBeLessThanOrEqual(1);
    if (mode !== 'naive') expect(whole.entities.length + whole.relations.length).toBeGreaterThan(2);
    // naive's one list is BM25's (the offline embedder's vectors join only when the words find
    // nothing, record 0076), and top_k 1 already reads one passage: chunk_top_k cuts nothing there.
    if (mode !== 'naive') expect(bounded.truncated).toBe(true);
    expect(JSON.stringify(bounded)).not.toContain('Zircon');
  });

  it('fits the whole context in max_total_tokens, chunks first among what the graph leaves', async () => {
    const whole = (await ask({}).expect(200)).body.context as Context;
    expect(tokensOf(whole)).toBeGreaterThan(150);
    const bounded = (await ask({ max_total_tokens: 150 }).expect(200)).body.context as Context;
    expect(tokensOf(bounded)).toBeLessThanOrEqual(150);
    expect(bounded.chunks.length).toBeGreaterThan(0);
    expect(bounded.truncated).toBe(true);
  });

  it('leaves the context as it was when none is given', async () => {
    const plain = (await ask({}).expect(200)).body.context as Context;
    const nulls = (await ask({ top_k: null, chunk_top_k: null, max_total_tokens: null }).expect(200)).body.context as Context;
    expect(nulls).toEqual(plain);
  });

  it.each([
    [{ top_k: 0 }, 'top_k', 'Input should be greater than or equal to 1'],
    [{ top_k: 201 }, 'top_k', 'Input should be less than or equal to 200'],
    [{ chunk_top_k: 2.5 }, 'chunk_top_k', 'Input should be a valid integer'],
    [{ chunk_top_k: 'five' }, 'chunk_top_k', 'Input should be a valid integer'],
    [{ max_total_tokens: 99 }, 'max_total_tokens', 'Input should be greater than or equal to 100'],
  ])('refuses %j with a 422 naming the field', async (body, field, message) => {
    const refused = await ask(body).expect(422);
    expect(refused.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc: ['body', field], msg: message })]));
  });

  it('takes the same bounds through the MCP ask tool', async () => {
    const result = (await client.callTool({ name: 'ask', arguments: { query: QUESTION, chunk_top_k: 2, top_k: 1 } })) as {
      content: Array<{ text: string }>;
      isError?: boolean;
    };
    expect(result.isError).toBeFalsy();
    const { context } = JSON.parse(result.content[0].text) as { context: Context };
    expect(context.chunks.length).toBeLessThanOrEqual(2);
    expect(context.entities.length).toBeLessThanOrEqual(1);
    const refused = (await client.callTool({ name: 'ask', arguments: { query: QUESTION, chunk_top_k: 0 } })) as { isError?: boolean };
    expect(refused.isError).toBe(true);
  });
});
