import { sql } from 'drizzle-orm';
import { DATABASE, Database, DocumentsRepository } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createApiKey, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A document opened (issue 39, item 2): its passages in order, a page at a time or the page
 * that holds a cited chunk; the entities and facts taken from it or from one passage; its
 * ingestion jobs. Every route inside the caller's tenant and its default graph: another
 * tenant's document, or a gb text, is not found.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Words that name nothing, so a paragraph is long enough to be a passage of its own. */
const FILLER = Array.from({ length: 14 }, (_, i) => `The quarterly review number ${i + 1} was long and quiet, and everyone agreed that the plans were fine.`).join(' ');
const TEXT = [
  `Alice Johnson works at Acme Corporation since 2019. ${FILLER}`,
  `In March 2023, Alice Johnson joined Globex Industries. ${FILLER}`,
  `Bob Stone lives in Lisbon. ${FILLER}`,
].join('\n\n');

describe('a document opened: passages, what was taken from it, its jobs (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;
  let documentId: string;
  let otherId: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    const upload = async (cast: Cast, name: string, text: string) => {
      const { body } = await t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name, text }).expect(202);
      await t.app.get(IngestWorker).drain();
      return body.document_id as string;
    };
    documentId = await upload(a, 'people.txt', TEXT);
    otherId = await upload(b, 'other.txt', 'Carol Diaz works at Initech in Austin.');
  });
  afterAll(() => t.close());

  const get = (path: string, token = a.member.token) => t.http.get(path).set(bearer(token));
  const chunks = async (query = '') => (await get(`/v1/documents/${documentId}/chunks${query}`).expect(200)).body;

  it('lists the passages in their order, a page at a time', async () => {
    const all = await chunks('?limit=200');
    expect(all).toMatchObject({ limit: 200, offset: 0 });
    expect(all.items.length).toBeGreaterThanOrEqual(3);
    expect(all.items.map((c: any) => c.index)).toEqual(all.items.map((_: unknown, i: number) => i));
    const { summary, ...first } = all.items[0];
    expect(first).toEqual({ chunk_id: expect.stringMatching(/^\d+$/), index: 0, text: expect.stringContaining('Alice Johnson works at Acme'), token_count: expect.any(Number) });
    expect(summary === null || typeof summary === 'string').toBe(true);
    const { body: document } = await get(`/v1/documents/${documentId}`).expect(200);
    expect(all.items).toHaveLength(document.counts.chunks);

    const second = await chunks('?limit=1&offset=1');
    expect(second).toMatchObject({ limit: 1, offset: 1 });
    expect(second.items.map((c: any) => c.chunk_id)).toEqual([all.items[1].chunk_id]);
    expect((await chunks('?offset=500')).items).toEqual([]);
    expect((await chunks()).limit).toBe(20);
  });

  it('finds the page that holds a cited chunk (page_of), its offset in the reply', async () => {
    const all = (await chunks('?limit=200')).items;
    const last = all[all.length - 1];
    const page = await chunks(`?limit=2&page_of=${last.chunk_id}`);
    expect(page.offset).toBe(Math.floor((all.length - 1) / 2) * 2);
    expect(page.items.map((c: any) => c.chunk_id)).toContain(last.chunk_id);
    const first = await chunks(`?page_of=${all[0].chunk_id}`);
    expect(first.offset).toBe(0);
    // A chunk of another document, or of another tenant's, is not in this one.
    const { body: theirs } = await get(`/v1/documents/${otherId}/chunks`, b.member.token).expect(200);
    const refused = await get(`/v1/documents/${documentId}/chunks?page_of=${theirs.items[0].chunk_id}`).expect(404);
    expect(refused.body.error).toMatchObject({ code: 'not_found', message: 'No such chunk in this document.' });
  });

  it('lists the entities and the facts taken from the document, and from one passage', async () => {
    const { body: entities } = await get(`/v1/documents/${documentId}/entities`).expect(200);
    expect(entities).toMatchObject({ limit: 50, offset: 0, chunk_id: null });
    const names = entities.items.map((e: any) => e.name);
    expect(names).toEqual(expect.arrayContaining(['Alice Johnson', 'Acme Corporation', 'Globex Industries', 'Bob Stone']));
    expect(names).not.toContain('Carol Diaz');
    expect([...names].sort((x: string, y: string) => x.toLowerCase().localeCompare(y.toLowerCase()))).toEqual(names);

    const { body: facts } = await get(`/v1/documents/${documentId}/facts`).expect(200);
    const said = facts.items.map((f: any) => `${f.source.name} -> ${f.target.name} (${f.status})`);
    expect(said).toEqual(expect.arrayContaining(['Alice Johnson -> Acme Corporation (superseded)', 'Alice Johnson -> Globex Industries (live)']));
    expect(facts.items.every((f: any) => f.documents.some((d: any) => d.document_id === documentId))).toBe(true);
    const order = facts.items.map((f: any) => f.valid_at ?? f.created_at);
    expect([...order].sort()).toEqual(order);
    const paged = await get(`/v1/documents/${documentId}/facts?limit=1&offset=1`).expect(200);
    expect(paged.body.items.map((f: any) => f.fact_id)).toEqual([facts.items[1].fact_id]);

    // The second passage gave the move to Globex, not the employment at Acme; and names Alice, not Bob.
    const second = (await chunks('?limit=200')).items[1];
    const { body: fromSecond } = await get(`/v1/documents/${documentId}/facts?chunk_id=${second.chunk_id}`).expect(200);
    expect(fromSecond.chunk_id).toBe(second.chunk_id);
    expect(fromSecond.items.map((f: any) => f.target.name)).toContain('Globex Industries');
    expect(fromSecond.items.map((f: any) => f.target.name)).not.toContain('Acme Corporation');
    const { body: namedThere } = await get(`/v1/documents/${documentId}/entities?chunk_id=${second.chunk_id}`).expect(200);
    expect(namedThere.items.map((e: any) => e.name)).toEqual(expect.arrayContaining(['Alice Johnson', 'Globex Industries']));
    expect(namedThere.items.map((e: any) => e.name)).not.toContain('Bob Stone');
  });

  it("shows the document's ingestion jobs: the upload's, then one for each retry", async () => {
    const { body } = await get(`/v1/documents/${documentId}/jobs`).expect(200);
    expect(body.items).toEqual([
      {
        job_id: expect.stringMatching(/^\d+$/),
        status: 'done',
        attempts: 1,
        max_attempts: expect.any(Number),
        queued_at: expect.any(String),
        started_at: expect.any(String),
        run_at: expect.any(String),
        updated_at: expect.any(String),
        last_error: null,
        background: false,
      },
    ]);
    const [job] = body.items;
    expect(job.queued_at <= job.started_at && job.started_at <= job.updated_at).toBe(true);

    // Failed (as a model error would leave it, here set by hand), then retried: a second job.
    await t.app.get(DocumentsRepository).setStatus(a.tenant.id, Number(documentId), 'failed', { statusReason: 'the model refused' });
    await t.http.post(`/v1/documents/${documentId}/retry`).set(bearer(a.member.token)).expect(202);
    await t.app.get(IngestWorker).drain();
    const { body: after } = await get(`/v1/documents/${documentId}/jobs`).expect(200);
    expect(after.items.map((j: any) => [j.job_id === job.job_id, j.status])).toEqual([
      [true, 'done'],
      [false, 'done'],
    ]);

    // A lapsed lease is told without the worker's name (a host and process of the platform's).
    const database = t.app.get<Database>(DATABASE);
    await database.db.execute(
      sql`UPDATE jobs SET last_error = 'lease expired: worker api-7f9c:4242 stopped renewing during attempt 1 of 5' WHERE tenant_id = ${a.tenant.id} AND id = ${Number(job.job_id)}`,
    );
    const { body: told } = await get(`/v1/documents/${documentId}/jobs`).expect(200);
    expect(told.items[0].last_error).toBe('lease expired: a worker stopped renewing during attempt 1 of 5');
  });

  it('answers bad parameters with a 4xx in the error shape, never a 5xx', async () => {
    const base = `/v1/documents/${documentId}`;
    for (const path of [
      `${base}/chunks?limit=0`,
      `${base}/chunks?limit=201`,
      `${base}/chunks?offset=-1`,
      `${base}/chunks?page_of=abc`,
      `${base}/chunks?page_of=1&offset=0`,
      `${base}/chunks?extra=1`,
      `${base}/facts?chunk_id=x`,
      `${base}/facts?chunk_id=${'9'.repeat(16)}`,
      `${base}/entities?limit=1000`,
      `${base}/entities?chunk_id=-1`,
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    for (const path of ['/v1/documents/abc/chunks', '/v1/documents/999999999/chunks', '/v1/documents/1e3/facts', '/v1/documents/999999999/entities', '/v1/documents/-1/jobs', `${base}/chunks?page_of=999999999`]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body.error.code).toBe('not_found');
    }
    // A passage that is not the document's gives nothing: a filter, not a look-up.
    const { body } = await get(`${base}/facts?chunk_id=999999999`).expect(200);
    expect(body.items).toEqual([]);
  });

  it("never shows another tenant's document, nor a gb text, through any of them (404, as an unknown id)", async () => {
    for (const part of ['chunks', 'entities', 'facts', 'jobs']) {
      const res = await get(`/v1/documents/${otherId}/${part}`);
      expect([part, res.status, res.body.error?.code]).toEqual([part, 404, 'not_found']);
      await get(`/v1/documents/${otherId}/${part}`, b.member.token).expect(200);
    }
    // Their passage asked through our document gives none of their facts.
    const { body: theirs } = await get(`/v1/documents/${otherId}/chunks`, b.member.token).expect(200);
    const { body: crossed } = await get(`/v1/documents/${documentId}/facts?chunk_id=${theirs.items[0].chunk_id}`).expect(200);
    expect(crossed.items).toEqual([]);

    const { body: remembered } = await t.http.post('/v1/gb/remember').set('X-API-Key', a.apiKey.key).send({ user_id: 'u1', text: 'Dana Lee works at Hooli.' }).expect(200);
    for (const part of ['chunks', 'entities', 'facts', 'jobs']) await get(`/v1/documents/${remembered.artifact_id}/${part}`).expect(404);
  });

  it('admits tenant members, admins and read keys; refuses operators (no tenant) and anonymous callers', async () => {
    const reader = await createApiKey(t.app, a.tenant.id, { scopes: ['read'] });
    await get(`/v1/documents/${documentId}/facts`, a.admin.token).expect(200);
    await t.http.get(`/v1/documents/${documentId}/chunks`).set('X-API-Key', reader.key).expect(200);
    await t.http.get(`/v1/documents/${documentId}/jobs`).set('X-API-Key', reader.key).expect(200);
    await get(`/v1/documents/${documentId}/chunks`, operator.token).expect(403);
    await t.http.get(`/v1/documents/${documentId}/chunks`).expect(401);
  });
});
