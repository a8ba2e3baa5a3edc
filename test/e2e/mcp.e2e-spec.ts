import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createApiKey, createTenant, createUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The MCP server at /mcp, driven by the official SDK's own client over Streamable HTTP against
 * the listening app (the embedded default: offline extraction and answers).
 */
describe('MCP server at /mcp', () => {
  let t: TestApp;
  let baseUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({});
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  async function connect(headers: Record<string, string>): Promise<Client> {
    const client = new Client({ name: 'loci-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  /** A tool's text result, parsed when it is JSON. */
  async function call(client: Client, name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ type: string; text: string }>; isError?: boolean };
    const text = result.content[0]?.text ?? '';
    let value: any = text;
    try {
      value = JSON.parse(text);
    } catch {
      // an error message
    }
    return { isError: result.isError ?? false, text, value };
  }

  async function tenantWithKey(scopes?: Array<'read' | 'write'>) {
    const tenant = await createTenant(t.app);
    const key = await createApiKey(t.app, tenant.id, scopes ? { scopes } : {});
    return { tenant, key };
  }

  it('lists its four tools to an API key (X-API-Key or Bearer)', async () => {
    const { key } = await tenantWithKey();
    for (const headers of [{ 'X-API-Key': key.key }, { Authorization: `Bearer ${key.key}` }] as Array<Record<string, string>>) {
      const client = await connect(headers);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['ask', 'forget', 'query', 'remember']);
      expect(tools.find((tool) => tool.name === 'remember')!.inputSchema.required).toEqual(expect.arrayContaining(['user_id', 'text']));
    }
  });

  it('remembers, answers from memory with evidence, and forgets a dataset', async () => {
    const { key } = await tenantWithKey();
    const client = await connect({ 'X-API-Key': key.key });

    const remembered = await call(client, 'remember', { user_id: 'u1', text: 'Alice works at Acme Corporation in Berlin.' });
    expect(remembered.isError).toBe(false);
    expect(remembered.value).toMatchObject({ dataset: 'main', duplicate: false });
    expect(remembered.value.entities.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['Alice']));

    const answered = await call(client, 'query', { user_id: 'u1', query: 'Where does Alice work?' });
    expect(answered.isError).toBe(false);
    expect(answered.value.answer).toMatch(/Acme/);
    expect(answered.value.evidence.edges.length).toBeGreaterThan(0);

    const forgotten = await call(client, 'forget', { user_id: 'u1', dataset: 'main' });
    expect(forgotten.value).toMatchObject({ user_id: 'u1', dataset: 'main', deleted: { texts: 1 } });
    const again = await call(client, 'forget', { user_id: 'u1', dataset: 'main' });
    expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/^404: dataset "main" does not exist/) });
  });

  it("asks the tenant's knowledge graph: retrieved context, no model", async () => {
    const { tenant, key } = await tenantWithKey();
    await t.app.get(DocumentsService).submit(tenant.id, { name: 'staff.txt', mimeType: 'text/plain', text: 'Bob Smith runs the Paris office of Globex.' });
    await t.app.get(IngestWorker).drain();
    const client = await connect({ 'X-API-Key': key.key });
    const asked = await call(client, 'ask', { query: 'Who runs the Paris office?' });
    expect(asked.isError).toBe(false);
    expect(asked.value.metadata.model).toBe('context-mode-no-llm');
    expect(asked.value.context.chunks[0]).toMatchObject({ document_name: 'staff.txt', text: expect.stringMatching(/Bob Smith/) });
  });

  it('refuses a wrong key and a dashboard session, and a tool whose scope the key lacks', async () => {
    await expect(connect({ 'X-API-Key': 'loci_not_a_real_key_at_all_0000000000' })).rejects.toMatchObject({ code: 401 });
    const { tenant } = await tenantWithKey();
    const member = await createUser(t.app, tenant.id, 'member');
    await expect(connect({ Authorization: `Bearer ${member.token}` })).rejects.toMatchObject({ code: 403 });

    const readOnly = await tenantWithKey(['read']);
    const client = await connect({ 'X-API-Key': readOnly.key.key });
    const refused = await call(client, 'remember', { user_id: 'u1', text: 'Alice works at Acme.' });
    expect(refused).toMatchObject({ isError: true, text: expect.stringMatching(/^403: .*'write' scope/) });
    // Reading is allowed: the route answers (here 404, the key's tenant has no such dataset), not the scope check.
    expect((await call(client, 'query', { user_id: 'u1', query: 'Where does Alice work?' })).text).not.toMatch(/scope/);
  });

  it('answers a bad argument as a tool error in the route\'s words, never a 5xx', async () => {
    const { key } = await tenantWithKey();
    const client = await connect({ 'X-API-Key': key.key });
    const bad = await call(client, 'remember', { user_id: 'u1', text: '   ' });
    expect(bad).toMatchObject({ isError: true, text: expect.stringMatching(/^400: text must not be empty/) });
    const badDataset = await call(client, 'query', { user_id: 'u1', query: 'q', dataset: 'no spaces allowed' });
    expect(badDataset).toMatchObject({ isError: true, text: expect.stringMatching(/^400: dataset must be/) });
  });

  it("keeps tenants apart: tenant B's key sees nothing of tenant A's memory, even for the same user id", async () => {
    const a = await tenantWithKey();
    const b = await tenantWithKey();
    const clientA = await connect({ 'X-API-Key': a.key.key });
    const clientB = await connect({ 'X-API-Key': b.key.key });
    await call(clientA, 'remember', { user_id: 'shared-user', text: 'Carol Diaz is the treasurer of Initech.' });
    await t.app.get(DocumentsService).submit(a.tenant.id, { name: 'a-only.txt', mimeType: 'text/plain', text: 'Carol Diaz signs the Initech budget.' });
    await t.app.get(IngestWorker).drain();

    const seenByA = await call(clientA, 'query', { user_id: 'shared-user', query: 'Who is the treasurer of Initech?' });
    expect(seenByA.value.answer).toMatch(/Carol/);

    const seenByB = await call(clientB, 'query', { user_id: 'shared-user', query: 'Who is the treasurer of Initech?' });
    // B has no such user's dataset: the same 404 the route gives, and nothing of A's in it.
    expect(seenByB).toMatchObject({ isError: true, text: expect.stringMatching(/^404: /) });
    expect(seenByB.text).not.toMatch(/Carol|Initech/);
    const askedByB = await call(clientB, 'ask', { query: 'Who signs the Initech budget?' });
    expect(askedByB.text).not.toMatch(/Carol|a-only/);
    const forgetByB = await call(clientB, 'forget', { user_id: 'shared-user', dataset: 'main' });
    expect(forgetByB.isError).toBe(true);
    // A's memory is still there.
    expect((await call(clientA, 'query', { user_id: 'shared-user', query: 'Who is the treasurer of Initech?' })).value.answer).toMatch(/Carol/);
  });
});
