import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Database, DATABASE, GraphsRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, HealthProbe, startHealthProbe } from '@loci/testing';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Issue 33.3: MCP is a surface like the others. Its tools take what their routes take
 * (/v1/query's and /v1/gb/query's sizes, not the 1 MiB body /mcp used to accept), oversized
 * and deeply nested arguments are refused in MCP's own shape (a JSON-RPC error, or an isError
 * tool result that says why) without harming the process, and a failure of Loci's own
 * answers "internal error" and the request id: never the failed statement, its parameters
 * (the question, the tenant id) or the tenant's text, in the result or in the log.
 */
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
/** Marks tenant text, so a result or a log line that repeats it is seen. */
const MARK = 'Quokka-3307';
/** Distinct words, as a pasted document: its lexemes do not collapse into one (PostgreSQL's tsvector holds at most 1 MB). */
const HUGE_QUESTION = `Where is ${MARK}? ${Array.from({ length: 150_000 }, (_, i) => `w${i.toString(36)}q`).join(' ')}`.slice(0, 900_000);
/** 200,000 keywords of one letter: 800 KB, within the body /mcp used to take. */
const HUGE_KEYWORDS = Array.from({ length: 200_000 }, () => 'k');

function nestedArrays(depth: number): unknown {
  let value: unknown = MARK;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

interface ToolAnswer {
  /** Which of MCP's shapes carried the answer. */
  shape: 'result' | 'tool-error' | 'jsonrpc-error';
  text: string;
}

describe('MCP tools are bounded like their routes, and their internal errors tell nothing', () => {
  let t: TestApp;
  let baseUrl: string;
  let probe: HealthProbe;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let client: Client;
  const lines: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp({ LOG_LEVEL: 'trace', ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined }, { logDestination: destination });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    people = await createTenantWithPeople(t.app);
    await t.app.get(DocumentsService).submit(people.tenant.id, { name: 'staff.txt', mimeType: 'text/plain', text: 'Bob Smith runs the Paris office of Globex.' });
    await t.app.get(IngestWorker).drain();
    client = new Client({ name: 'bounds-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': people.apiKey.key } } }));
    probe = startHealthProbe(baseUrl);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /** A tool call through the SDK's client: a result, a tool error, or a JSON-RPC error it threw. */
  async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
    try {
      const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }>; isError?: boolean };
      return { shape: result.isError ? 'tool-error' : 'result', text: result.content.map((c) => c.text).join('\n') };
    } catch (error) {
      return { shape: 'jsonrpc-error', text: (error as Error).message };
    }
  }

  /** A raw POST of a body the SDK's client would not write (too deep for JSON.stringify, or too big). */
  function post(body: string): Promise<Response> {
    return fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, 'X-API-Key': people.apiKey.key }, body });
  }

  /** A refusal in MCP's shape that says why, and repeats none of what it was sent. */
  function expectRefused(answer: ToolAnswer, why: RegExp): void {
    expect(answer.shape).not.toBe('result');
    expect(answer.text).toMatch(why);
    expect(answer.text).not.toContain(MARK);
    expect(answer.text.length).toBeLessThan(2_000);
  }

  it('refuses an ask with a 900,000-character question', async () => {
    expectRefused(await call('ask', { query: HUGE_QUESTION }), /query.*(at most|too big|<=) ?65536/is);
  });

  it('refuses a gb query with a 900,000-character question', async () => {
    expectRefused(await call('query', { user_id: 'u1', query: HUGE_QUESTION }), /query.*(at most|too big|<=) ?65536/is);
  });

  it('refuses keyword lists of 200,000 elements', async () => {
    expectRefused(await call('ask', { query: `Who runs ${MARK}?`, hl_keywords: HUGE_KEYWORDS, ll_keywords: ['Paris'] }), /elements|items|too big/i);
    expectRefused(await call('ask', { query: `Who runs ${MARK}?`, hl_keywords: ['office'], ll_keywords: HUGE_KEYWORDS }), /elements|items|too big/i);
  });

  it("refuses arguments each within its bound that together weigh more than the route's body", async () => {
    const keywords = Array.from({ length: 100 }, (_, i) => `${MARK}-${i}-${'k'.repeat(200)}`);
    const answer = await call('ask', { query: `Who runs the Paris office? ${'w '.repeat(20_000)}`, hl_keywords: keywords, ll_keywords: keywords });
    expect(answer).toEqual({ shape: 'tool-error', text: '413: The arguments are larger than the 64 KiB that /v1/query takes.' });
  });

  it('refuses deeply nested arguments, in a known argument and in an unknown one', async () => {
    expectRefused(await call('ask', { query: 'Who runs the Paris office?', hl_keywords: nestedArrays(3_000), ll_keywords: ['Paris'] }), /elements|expected string/i);
    expectRefused(await call('remember', { user_id: 'u1', text: 'Alice works at Acme.', extra: nestedArrays(3_000) }), /elements/i);
    // 200,000 levels: more than JSON.stringify (or any recursive walk) survives; written by hand.
    const depth = 200_000;
    const args = `{"query":"Who runs the Paris office?","extra":${'['.repeat(depth)}"${MARK}"${']'.repeat(depth)}}`;
    const response = await post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ask","arguments":${args}}}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { result?: unknown };
    expect(body.result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/elements/) }] });
    expect(JSON.stringify(body)).not.toContain(MARK);
  });

  it('refuses a body over the limit with a JSON-RPC error, before reading it', async () => {
    const text = 'x'.repeat(1_200_000);
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'remember', arguments: { user_id: 'u1', text } } }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/Payload Too Large.*\d+ bytes/) }, id: null });
  });

  it('still takes what the routes take: a long question, and a remembered text larger than /v1/query allows', async () => {
    const asked = await call('ask', { query: 'Who runs the Paris office?', hl_keywords: ['office'], ll_keywords: ['Paris'] });
    expect(asked).toMatchObject({ shape: 'result', text: expect.stringMatching(/Bob Smith/) });
    // With its keywords given: without them the offline keyword extractor reads the whole question.
    const long = await call('ask', { query: `Who? ${'w '.repeat(32_000)}`, hl_keywords: ['office'], ll_keywords: ['Paris'] });
    expect(long.shape).toBe('result');
    // Past MCP's bounds to the route's own validation (a bad dataset name, so nothing is extracted).
    const remembered = await call('remember', { user_id: 'u1', text: `Alice works at Acme. ${'Filler words here. '.repeat(4_000)}`, dataset: 'no spaces allowed' });
    expect(remembered).toEqual({ shape: 'tool-error', text: expect.stringMatching(/^400: dataset must be/) });
  });

  it('keeps clear messages for known client errors: validation, not found, scope', async () => {
    expect(await call('remember', { user_id: 'u1', text: '   ' })).toEqual({ shape: 'tool-error', text: expect.stringMatching(/^400: text must not be empty/) });
    expect(await call('forget', { user_id: 'nobody', dataset: 'main' })).toEqual({ shape: 'tool-error', text: expect.stringMatching(/^404: dataset "main" does not exist/) });
  });

  it('answers an internal error with "internal error" and the request id: no statement, question or tenant id, and logs no tenant text', async () => {
    // A store fault in ask's path: the statement really runs and fails, and its parameters
    // are the question and the tenant id, as a failed retrieval statement's are.
    const { db } = t.app.get<Database>(DATABASE);
    const question = `Where does ${MARK} keep the keys?`;
    const graphs = t.app.get(GraphsRepository);
    const spy = jest.spyOn(graphs, 'vectorTier').mockImplementation(async (tenantId: string) => {
      await db.execute(sql`select ${question}::int as broken, ${tenantId}::uuid as tenant`);
      throw new Error('unreachable: the statement fails');
    });
    let answer: ToolAnswer;
    try {
      answer = await call('ask', { query: question });
    } finally {
      spy.mockRestore();
    }
    expect(answer.shape).toBe('tool-error');
    expect(answer.text).toMatch(/^500: internal error \(request id [\w:-]+\)$/);
    for (const leak of [MARK, people.tenant.id, 'select', 'params', '::int']) expect(answer.text).not.toContain(leak);

    const requestId = /request id ([\w:-]+)/.exec(answer.text)![1];
    const logged = lines.filter((line) => line.includes(requestId) && /internal/i.test(line));
    expect(logged.length).toBeGreaterThan(0);
    // The record names the failure (its class and SQLSTATE) without its text.
    expect(logged.join('\n')).toMatch(/22P02/);
    expect(lines.filter((line) => line.includes(MARK))).toEqual([]);
  });

  it('lived through all of it: /healthz answered within a second all along', async () => {
    expect((await call('ask', { query: 'Who runs the Paris office?' })).shape).toBe('result');
    const report = await probe.stop();
    expect(report.probes).toBeGreaterThan(0);
    expect(report.failed).toEqual([]);
    expect(report.slow).toEqual([]);
  });
});
