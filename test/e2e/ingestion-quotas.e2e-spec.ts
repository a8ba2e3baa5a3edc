import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type People = Awaited<ReturnType<typeof createTenantWithPeople>>;

/**
 * Ingestion quotas (issue 34.4) on whichever stores the environment selects: each refused at its
 * edge in the surface's shape, a deduplicated retry not counted, gb remember counted, the use
 * shown on GET /v1/tenant and in the usage report. The worker is off: uploads stay queued, so a
 * megabyte of text costs no ingestion.
 */
describe('ingestion quotas', () => {
  let t: TestApp;
  let operator: TestUser;
  let baseUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await t.close();
  });

  const limit = (tenantId: string, body: object) =>
    t.http.patch(`/v1/admin/tenants/${tenantId}/limits`).set('Authorization', `Bearer ${operator.token}`).send(body).expect(200);
  const upload = (who: People, text: string, name = 'doc.txt') =>
    t.http.post('/v1/documents').set('Authorization', `Bearer ${who.apiKey.key}`).send({ name, text });
  const remember = (who: People, text: string, dataset = 'main') =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${who.apiKey.key}`).send({ user_id: 'u1', text, dataset });
  const ownTenant = async (who: People) =>
    (await t.http.get('/v1/tenant').set('Authorization', `Bearer ${who.admin.token}`).expect(200)).body;
  const today = () => new Date().toISOString().slice(0, 10);
  const usageToday = async (who: People) => {
    const usage = await t.http.get('/v1/usage').set('Authorization', `Bearer ${who.admin.token}`).expect(200);
    return usage.body.items.find((item: { day: string }) => item.day === today());
  };
  /** Seconds from now to the next UTC midnight, as Retry-After should say (give or take a test's duration). */
  const secondsToMidnight = () => {
    const now = Date.now();
    const midnight = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1);
    return (midnight - now) / 1000;
  };
  const expectRetryAfterMidnight = (header: string | undefined) => {
    expect(header).toMatch(/^\d+$/);
    expect(Math.abs(Number(header) - secondsToMidnight())).toBeLessThan(120);
  };

  it('refuses the document past daily_document_quota with 429 until the next UTC day, a deduplicated retry uncounted, the other tenant unaffected', async () => {
    const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await limit(a.tenant.id, { daily_document_quota: 2 });
    await limit(b.tenant.id, { daily_document_quota: 2 });

    await upload(a, 'Alice works at Acme.').expect(202);
    // The same content again: the first document (200), not counted a second time.
    await upload(a, 'Alice works at Acme.', 'again.txt').expect(200);
    await upload(a, 'Bob lives in Paris.').expect(202);
    const refused = await upload(a, 'Carol founded Initech.').expect(429);
    expect(refused.body).toEqual({
      error: { code: 'daily_document_quota_exceeded', message: 'daily document quota exceeded', limit: 2, retry_after: expect.any(Number) },
      request_id: expect.any(String),
    });
    expectRetryAfterMidnight(refused.headers['retry-after']);
    expect(refused.body.error.retry_after).toBe(Number(refused.headers['retry-after']));
    // Refused means not stored: the list holds the two.
    const listed = await t.http.get('/v1/documents').set('Authorization', `Bearer ${a.apiKey.key}`).expect(200);
    expect(listed.body.items).toHaveLength(2);
    // A retry of what is already stored is still answered at the edge.
    await upload(a, 'Bob lives in Paris.').expect(200);

    // The other tenant counts its own day.
    await upload(b, 'Carol founded Initech.').expect(202);

    expect((await ownTenant(a)).ingestion).toMatchObject({ documents_today: 2 });
    expect((await ownTenant(b)).ingestion).toMatchObject({ documents_today: 1 });
    expect(await usageToday(a)).toMatchObject({
      documents: 2,
      ingested_mb: Buffer.byteLength('Alice works at Acme.Bob lives in Paris.') / 1e6,
      refusals: { daily_document_quota_exceeded: 1 },
    });

    // Raised by an operator, it applies at once.
    await limit(a.tenant.id, { daily_document_quota: 3 });
    await upload(a, 'Carol founded Initech.').expect(202);
  });

  it('counts gb remember against daily_document_quota, refused in the gb shape; the same text again is a duplicate, not counted', async () => {
    const a = await createTenantWithPeople(t.app);
    await limit(a.tenant.id, { daily_document_quota: 2 });

    await remember(a, 'Dana works at Umbrella.').expect(200);
    const duplicate = await remember(a, 'Dana works at Umbrella.').expect(200);
    expect(duplicate.body.duplicate).toBe(true);
    await upload(a, 'Erin lives in Rome.').expect(202);

    const refused = await remember(a, 'Frank works at Hooli.').expect(429);
    expect(refused.body).toEqual({ error: 'daily_document_quota_exceeded', limit: 2, retry_after: expect.any(Number) });
    expectRetryAfterMidnight(refused.headers['retry-after']);
    await upload(a, 'Frank works at Hooli.').expect(429);
    // Refused, the text left nothing behind: the dataset holds the one text.
    const datasets = await t.http.get('/v1/gb/datasets?user_id=u1').set('Authorization', `Bearer ${a.apiKey.key}`).expect(200);
    expect(datasets.body.datasets).toEqual([expect.objectContaining({ name: 'main', texts: 1 })]);

    expect((await ownTenant(a)).ingestion.documents_today).toBe(2);
    expect(await usageToday(a)).toMatchObject({
      documents: 2,
      refusals: { daily_document_quota_exceeded: 2 },
    });
  });

  it("refuses the MCP remember tool past daily_document_quota with a tool error naming the limit, counted as a refusal", async () => {
    const a = await createTenantWithPeople(t.app);
    await limit(a.tenant.id, { daily_document_quota: 1 });
    const client = new Client({ name: 'quota-test-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': a.apiKey.key } } }));
    clients.push(client);
    const rememberTool = async (text: string) =>
      (await client.callTool({ name: 'remember', arguments: { user_id: 'u1', text } })) as { content: Array<{ text: string }>; isError?: boolean };
    expect((await rememberTool('Jane works at Cyberdyne.')).isError).toBeFalsy();
    const refused = await rememberTool('Kyle lives in Denver.');
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toMatch(/^429: daily_document_quota_exceeded/);
    expect(refused.content[0].text).toMatch(/"limit":1/);
    expect(await usageToday(a)).toMatchObject({ documents: 1, refusals: { daily_document_quota_exceeded: 1 } });
  });

  it('lets concurrent uploads past daily_document_quota by none', async () => {
    const a = await createTenantWithPeople(t.app);
    await limit(a.tenant.id, { daily_document_quota: 3 });
    const statuses = (await Promise.all(Array.from({ length: 8 }, (_, i) => upload(a, `Person ${i} works at Company ${i}.`)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect((await ownTenant(a)).ingestion.documents_today).toBe(3);
  });

  it('refuses text past daily_ingest_mb with 429 at its edge, and a document larger than a whole day with 413', async () => {
    const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await limit(a.tenant.id, { daily_ingest_mb: 1 });
    await limit(b.tenant.id, { daily_ingest_mb: 1 });

    await upload(a, 'a'.repeat(600_000)).expect(202);
    await upload(a, 'a'.repeat(600_000), 'again.txt').expect(200);
    // 1 000 000 bytes today: the edge itself is allowed.
    await upload(a, 'b'.repeat(400_000)).expect(202);
    const refused = await upload(a, 'c').expect(429);
    expect(refused.body.error).toMatchObject({ code: 'daily_ingest_quota_exceeded', limit_mb: 1, ingested_mb: 1, retry_after: expect.any(Number) });
    expectRetryAfterMidnight(refused.headers['retry-after']);
    expect((await ownTenant(a)).ingestion).toMatchObject({ documents_today: 2, ingested_mb_today: 1 });

    // A document no day could take: waiting would not help, so 413 without Retry-After.
    const tooLarge = await upload(b, 'd'.repeat(1_000_001)).expect(413);
    expect(tooLarge.body.error).toMatchObject({ code: 'daily_ingest_quota_exceeded', limit_mb: 1, ingested_mb: 0 });
    expect(tooLarge.headers['retry-after']).toBeUndefined();
    await upload(b, 'd'.repeat(1_000_000)).expect(202);
    expect(await usageToday(b)).toMatchObject({ documents: 1, ingested_mb: 1, refusals: { daily_ingest_quota_exceeded: 1 } });
  });

  it('refuses text past max_stored_mb with 413, freed again by deleting documents and gb datasets', async () => {
    const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await limit(a.tenant.id, { max_stored_mb: 1 });

    const first = await upload(a, 'e'.repeat(600_000)).expect(202);
    await remember(a, 'Gina works at Stark Industries.', 'notes').expect(200);
    const remembered = Buffer.byteLength('Gina works at Stark Industries.');
    await upload(a, 'f'.repeat(400_000 - remembered)).expect(202);
    expect((await ownTenant(a)).ingestion.stored_mb).toBe(1);

    const refused = await upload(a, 'g').expect(413);
    expect(refused.body.error).toMatchObject({ code: 'storage_quota_exceeded', limit_mb: 1, stored_mb: 1 });
    expect(refused.headers['retry-after']).toBeUndefined();
    const refusedRemember = await remember(a, 'Hank lives in Oslo.').expect(413);
    expect(refusedRemember.body).toEqual({ error: 'storage_quota_exceeded', limit_mb: 1, stored_mb: 1 });
    // The other tenant stores its own.
    await upload(b, 'g').expect(202);

    // Deleting a document frees its text; deleting a gb dataset frees its texts.
    await t.http.delete(`/v1/documents/${first.body.document_id}`).set('Authorization', `Bearer ${a.apiKey.key}`).expect(204);
    expect((await ownTenant(a)).ingestion.stored_mb).toBe(0.4);
    await t.http.delete('/v1/gb/datasets/notes?user_id=u1').set('Authorization', `Bearer ${a.apiKey.key}`).expect(200);
    expect((await ownTenant(a)).ingestion.stored_mb).toBe((400_000 - remembered) / 1e6);
    await upload(a, 'g').expect(202);
    // The day's intake is not given back by deleting.
    expect((await ownTenant(a)).ingestion).toMatchObject({ documents_today: 4, ingested_mb_today: 1.000001 });
    expect(await usageToday(a)).toMatchObject({ refusals: { storage_quota_exceeded: 2 } });
  });

  it('shows operators each tenant\'s use beside its limits', async () => {
    const a = await createTenantWithPeople(t.app);
    await limit(a.tenant.id, { daily_document_quota: 10, daily_ingest_mb: 5, max_stored_mb: 20 });
    await upload(a, 'Ivan works at Wayne Enterprises.').expect(202);
    const bytes = Buffer.byteLength('Ivan works at Wayne Enterprises.');
    const one = await t.http.get(`/v1/admin/tenants/${a.tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(one.body.limits).toMatchObject({ daily_document_quota: 10, daily_ingest_mb: 5, max_stored_mb: 20 });
    expect(one.body.ingestion).toEqual({ documents_today: 1, ingested_mb_today: bytes / 1e6, stored_mb: bytes / 1e6 });
    const list = await t.http.get('/v1/admin/tenants?limit=200').set('Authorization', `Bearer ${operator.token}`).expect(200);
    const listed = list.body.items.find((item: { id: string }) => item.id === a.tenant.id);
    if (listed) expect(listed.ingestion).toEqual(one.body.ingestion);
  });
});
