import { GraphReadsRepository, GraphsRepository } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** /v1/documents on the embedded default: the local provider, the in-process worker. */
describe('/v1/documents', () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let b: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
  });
  afterAll(() => t.close());

  const asKey = (key: string) => ({ Authorization: `Bearer ${key}` });
  const submit = (body: object, headers = asKey(a.apiKey.key)) => t.http.post('/v1/documents').set(headers).send(body);
  const settle = () => t.app.get(IngestWorker).drain();
  const graphOf = async (tenantId: string) => {
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenantId);
    return t.app.get(GraphReadsRepository).graphContents(tenantId, graph.id);
  };

  it('ingests a document into the graph, with progress and counts', async () => {
    const text =
      'Alice Johnson works at Acme Corporation in Berlin. Acme Corporation acquired Globex in 2019. ' +
      'Bob Smith lives in Paris.';
    const created = await submit({ name: 'team.txt', text, document_date: '2024-05-01' }).expect(202);
    expect(created.body).toEqual({ document_id: expect.stringMatching(/^\d+$/), status: 'pending' });
    await settle();

    const shown = await t.http.get(`/v1/documents/${created.body.document_id}`).set(asKey(a.apiKey.key)).expect(200);
    expect(shown.body).toMatchObject({
      document_id: created.body.document_id,
      name: 'team.txt',
      status: 'processed',
      error: null,
      progress: { chunks_done: 1, chunks_total: 1 },
      counts: { chunks: 1 },
      document_date: '2024-05-01T00:00:00.000Z',
    });
    expect(shown.body.counts.entities).toBeGreaterThanOrEqual(4);
    expect(shown.body.counts.edges).toBeGreaterThanOrEqual(2);

    const graph = await graphOf(a.tenant.id);
    const names = new Map(graph.entities.map((e) => [e.id, e.name]));
    const facts = graph.edges.map((e) => `${names.get(e.sourceId)} ${e.relation} ${names.get(e.targetId)}`);
    expect(facts).toEqual(
      expect.arrayContaining(['Alice Johnson works_at Acme Corporation', 'Acme Corporation acquired Globex', 'Bob Smith lives_in Paris']),
    );
    const acquired = graph.edges.find((e) => e.relation === 'acquired')!;
    expect(acquired.validAt?.toISOString()).toBe('2019-01-01T00:00:00.000Z');
    // A fact the text gives no date for is valid from the document's date.
    expect(graph.edges.find((e) => e.relation === 'lives_in')!.validAt?.toISOString()).toBe('2024-05-01T00:00:00.000Z');
  });

  it('returns the existing document for the same content (200), not a copy', async () => {
    const first = await submit({ name: 'x.txt', text: 'Carol Diaz works at Initech.' }).expect(202);
    const again = await submit({ name: 'other name.txt', text: '  Carol Diaz works at Initech.\n' }).expect(200);
    expect(again.body.document_id).toBe(first.body.document_id);
    await settle();
  });

  it('lists documents page by page, newest first', async () => {
    const list = await t.http.get('/v1/documents?limit=1&offset=0').set(asKey(a.apiKey.key)).expect(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body).toMatchObject({ limit: 1, offset: 0 });
    const all = await t.http.get('/v1/documents?limit=50').set(asKey(a.apiKey.key)).expect(200);
    expect(all.body.items.length).toBeGreaterThanOrEqual(2);
  });

  it('deletes a document and what only it supported, keeping what others support', async () => {
    const one = await submit({ name: 'one', text: 'Dana Scully works at Quantico Bureau.' }).expect(202);
    const two = await submit({ name: 'two', text: 'Dana Scully lives in Annapolis.' }).expect(202);
    await settle();
    await t.http.delete(`/v1/documents/${two.body.document_id}`).set(asKey(a.apiKey.key)).expect(204);
    await t.http.get(`/v1/documents/${two.body.document_id}`).set(asKey(a.apiKey.key)).expect(404);

    const graph = await graphOf(a.tenant.id);
    const names = graph.entities.map((e) => e.name);
    expect(names).toContain('Dana Scully'); // also supported by document one
    expect(names).toContain('Quantico Bureau');
    expect(names).not.toContain('Annapolis');
    expect(graph.edges.some((e) => e.relation === 'lives_in' && e.artifactId === Number(two.body.document_id))).toBe(false);
    expect(graph.edges.some((e) => e.relation === 'works_at' && e.artifactId === Number(one.body.document_id))).toBe(true);
  });

  it('retries only failed documents', async () => {
    const doc = await submit({ name: 'r', text: 'Evan Wright teaches at Hill Valley High.' }).expect(202);
    await settle();
    const retry = await t.http.post(`/v1/documents/${doc.body.document_id}/retry`).set(asKey(a.apiKey.key)).expect(409);
    expect(retry.body.error.message).toMatch(/processed/);
  });

  it('accepts JWT admins and members as well as API keys', async () => {
    await t.http.get('/v1/documents').set({ Authorization: `Bearer ${a.member.token}` }).expect(200);
    await submit({ name: 'm', text: 'Fay Lin works at Hooli.' }, { Authorization: `Bearer ${a.admin.token}` }).expect(202);
    await settle();
  });

  it('keeps tenants apart: another tenant cannot see, list or delete a document', async () => {
    const doc = await submit({ name: 'secret', text: 'Gus Fring owns Los Pollos Hermanos.' }).expect(202);
    await settle();
    const id = doc.body.document_id;
    await t.http.get(`/v1/documents/${id}`).set(asKey(b.apiKey.key)).expect(404);
    await t.http.delete(`/v1/documents/${id}`).set(asKey(b.apiKey.key)).expect(404);
    await t.http.post(`/v1/documents/${id}/retry`).set(asKey(b.apiKey.key)).expect(404);
    const list = await t.http.get('/v1/documents').set(asKey(b.apiKey.key)).expect(200);
    expect(list.body.items.map((d: { document_id: string }) => d.document_id)).not.toContain(id);
    await t.http.get(`/v1/documents/${id}`).set(asKey(a.apiKey.key)).expect(200);
    // the same text in another tenant is another document
    const inB = await submit({ name: 'secret', text: 'Gus Fring owns Los Pollos Hermanos.' }, asKey(b.apiKey.key)).expect(202);
    expect(inB.body.document_id).not.toBe(id);
    await settle();
  });

  it('answers bad input with 4xx in the generic shape', async () => {
    const missing = await submit({ name: 'x' }).expect(400);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ field: 'text' })]);
    await submit({ name: 'x', text: '   ' }).expect(400);
    const unknown = await submit({ name: 'x', text: 'y', colour: 'red' }).expect(400);
    expect(unknown.body.error.details).toEqual([{ field: 'colour', message: 'unknown field' }]);
    await submit({ name: 'x', text: 'y', document_date: 'yesterday' }).expect(400);
    await t.http.get('/v1/documents/abc').set(asKey(a.apiKey.key)).expect(404);
    await t.http.get('/v1/documents/99999999').set(asKey(a.apiKey.key)).expect(404);
  });

  it('takes multipart uploads of the accepted types, and refuses others with 415', async () => {
    const uploaded = await t.http
      .post('/v1/documents')
      .set(asKey(a.apiKey.key))
      .field('document_date', '2023-01-01')
      .attach('file', Buffer.from('# Notes\n\nHana Sato works at Umbrella Labs.\n'), 'notes.md')
      .expect(202);
    await settle();
    const shown = await t.http.get(`/v1/documents/${uploaded.body.document_id}`).set(asKey(a.apiKey.key)).expect(200);
    expect(shown.body).toMatchObject({ name: 'notes.md', status: 'processed', mime_type: 'text/markdown' });

    const refused = await t.http
      .post('/v1/documents')
      .set(asKey(a.apiKey.key))
      .attach('file', Buffer.from('MZ binary'), 'tool.exe')
      .expect(415);
    expect(refused.body.error.code).toBe('unsupported_media_type');
    expect(refused.body.error.message).toMatch(/\.txt.*\.md.*\.html.*\.pdf/);
  });

  it('refuses a file whose text cannot be read with 422', async () => {
    const response = await t.http
      .post('/v1/documents')
      .set(asKey(a.apiKey.key))
      .attach('file', Buffer.from([0x48, 0x69, 0xff, 0xfe, 0x00, 0x41]), 'broken.txt')
      .expect(422);
    expect(response.body.error.code).toBe('unreadable_file');
  });

  it('refuses an upload over the size limit with 413', async () => {
    const big = Buffer.alloc(21 * 1024 * 1024, 'a');
    const response = await t.http.post('/v1/documents').set(asKey(a.apiKey.key)).attach('file', big, 'big.txt');
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('payload_too_large');
  });
});
