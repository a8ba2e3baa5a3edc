import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The graph-browsing API (issue 17, item 1): entities by name, an entity with its facts in time
 * order (live, ended, superseded, with their four times and supporting documents), a fact's
 * history, and the document list's status filter; every route inside the caller's tenant.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('graph browsing (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    const upload = async (cast: Cast, name: string, text: string) => {
      await t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name, text }).expect(202);
      await t.app.get(IngestWorker).drain();
    };
    // Two documents, one after the other: the second supersedes the first's employment fact.
    await upload(a, 'acme.txt', 'Alice Johnson works at Acme Corporation since 2019.');
    await upload(a, 'globex.txt', 'In March 2023, Alice Johnson joined Globex Industries.');
    await upload(b, 'other.txt', 'Alice Johnson works at Initech in Austin.');
  });
  afterAll(() => t.close());

  const get = (path: string, token = a.member.token) => t.http.get(path).set(bearer(token));

  async function alice(cast: Cast = a) {
    const { body } = await get('/v1/entities?q=alice', cast.member.token).expect(200);
    const found = body.items.find((e: { name: string }) => e.name === 'Alice Johnson');
    expect(found).toBeDefined();
    return found as { entity_id: string; name: string; fact_count: number };
  }

  it('finds entities by the prefixes of their names words, whole-name prefixes first', async () => {
    const { body } = await get('/v1/entities?q=acme%20cor').expect(200);
    expect(body.items.map((e: { name: string }) => e.name)).toContain('Acme Corporation');
    expect(body).toMatchObject({ limit: 50, offset: 0 });
    const byWord = await get('/v1/entities?q=corp').expect(200);
    expect(byWord.body.items.map((e: { name: string }) => e.name)).toContain('Acme Corporation');
    const none = await get('/v1/entities?q=zzzqqq').expect(200);
    expect(none.body.items).toEqual([]);
    // Query syntax is not interpreted: it is just words.
    await get(`/v1/entities?q=${encodeURIComponent("a:* & !(b | ') \\ %_")}`).expect(200);
    const paged = await get('/v1/entities?q=a&limit=1&offset=0').expect(200);
    expect(paged.body.items.length).toBeLessThanOrEqual(1);
    expect((await alice()).fact_count).toBeGreaterThanOrEqual(2);
  });

  it('shows an entity with every fact in time order, their state, times and documents', async () => {
    const { entity_id } = await alice();
    const { body } = await get(`/v1/entities/${entity_id}`).expect(200);
    expect(body.entity).toMatchObject({ entity_id, name: 'Alice Johnson' });
    const acme = body.facts.find((f: any) => f.target.name === 'Acme Corporation');
    const globex = body.facts.find((f: any) => f.target.name === 'Globex Industries');
    expect(acme).toMatchObject({ status: 'superseded', source: { entity_id, name: 'Alice Johnson' }, expired_at: expect.any(String) });
    expect(acme.invalid_at).toBe(globex.valid_at);
    expect(acme.documents).toEqual([{ document_id: expect.any(String), name: 'acme.txt' }]);
    expect(globex).toMatchObject({ status: 'live', invalid_at: null, expired_at: null, created_at: expect.any(String) });
    expect(globex.documents.map((d: any) => d.name)).toEqual(['globex.txt']);
    // Each end carries its type, as the entity itself says it (the console's graph draws nodes by it).
    const { body: globexEntity } = await get(`/v1/entities/${globex.target.entity_id}`).expect(200);
    expect(globex.target).toEqual({ entity_id: globexEntity.entity.entity_id, name: 'Globex Industries', type: globexEntity.entity.type });
    expect(globex.source.type).toBe(body.entity.type);
    const order = body.facts.map((f: any) => f.valid_at ?? f.created_at);
    expect([...order].sort()).toEqual(order);
  });

  it("shows a fact's history: every fact of its source and slot, in time order", async () => {
    const { entity_id } = await alice();
    const { body: detail } = await get(`/v1/entities/${entity_id}`).expect(200);
    const globex = detail.facts.find((f: any) => f.target.name === 'Globex Industries');
    const { body } = await get(`/v1/facts/${globex.fact_id}/history`).expect(200);
    expect(body.fact.fact_id).toBe(globex.fact_id);
    expect(body.history.map((f: any) => [f.target.name, f.status])).toEqual([
      ['Acme Corporation', 'superseded'],
      ['Globex Industries', 'live'],
    ]);
  });

  it('lists documents by status, a page at a time', async () => {
    const processed = await get('/v1/documents?status=processed&limit=1').expect(200);
    expect(processed.body).toMatchObject({ limit: 1, offset: 0, status: 'processed' });
    expect(processed.body.items).toHaveLength(1);
    const second = await get('/v1/documents?status=processed&limit=1&offset=1').expect(200);
    expect(second.body.items[0].document_id).not.toBe(processed.body.items[0].document_id);
    const failed = await get('/v1/documents?status=failed').expect(200);
    expect(failed.body.items).toEqual([]);
  });

  it('answers bad parameters with a 4xx in the error shape, never a 5xx', async () => {
    for (const path of ['/v1/entities', '/v1/entities?q=', '/v1/entities?q=a&limit=0', '/v1/entities?q=a&offset=-1', '/v1/entities?q=a&extra=1', `/v1/entities?q=${'x'.repeat(201)}`, '/v1/documents?status=done']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
      expect(res.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    }
    for (const path of ['/v1/entities/abc', '/v1/entities/999999999', '/v1/facts/abc/history', '/v1/facts/999999999/history']) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it("never shows another tenant's entities, facts or documents", async () => {
    const own = await alice(a);
    const theirs = await alice(b);
    expect(theirs.entity_id).not.toBe(own.entity_id);
    const { body: search } = await get('/v1/entities?q=initech').expect(200);
    expect(search.items).toEqual([]);
    await get(`/v1/entities/${theirs.entity_id}`).expect(404);
    const { body: theirDetail } = await get(`/v1/entities/${theirs.entity_id}`, b.member.token).expect(200);
    await get(`/v1/facts/${theirDetail.facts[0].fact_id}/history`).expect(404);
    const { body: docs } = await get('/v1/documents?status=processed').expect(200);
    expect(docs.items.map((d: any) => d.name).sort()).toEqual(['acme.txt', 'globex.txt']);
  });

  it('admits tenant members, admins and read keys; refuses operators (no tenant) and anonymous callers', async () => {
    const { entity_id } = await alice();
    await get(`/v1/entities/${entity_id}`, a.admin.token).expect(200);
    await t.http.get('/v1/entities?q=alice').set('X-API-Key', a.apiKey.key).expect(200);
    await get('/v1/entities?q=alice', operator.token).expect(403);
    await t.http.get('/v1/entities?q=alice').expect(401);
  });
});
