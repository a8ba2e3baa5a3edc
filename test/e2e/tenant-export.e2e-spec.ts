import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { TenantExportRepository } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Tenant export (issue 15.3): a tenant admin (and an operator, for any tenant) takes the
 * tenant's documents, graph and usage out as JSON Lines, streamed a page at a time.
 */

type Cast = Awaited<ReturnType<typeof createTenantWithPeople>>;
type ExportRecord = { type: string } & Record<string, any>;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** supertest does not buffer application/x-ndjson: collect the body as text. */
function asText(res: any, callback: (error: Error | null, body: string) => void): void {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (text += chunk));
  res.on('end', () => callback(null, text));
}

function recordsOf(res: Response): ExportRecord[] {
  const text = res.body as string;
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as ExportRecord);
}

const ofType = (records: ExportRecord[], type: string) => records.filter((r) => r.type === type);

describe('tenant export (e2e)', () => {
  let t: TestApp;
  let a: Cast;
  let b: Cast;
  let operator: TestUser;
  const aMarker = 'Margaret Thornton';
  const bMarker = `Bartholomew Oakenshield ${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    const upload = (cast: Cast, name: string, text: string) =>
      t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name, text }).expect(202);
    await upload(a, 'people.txt', `${aMarker} works at Acme Corporation in Berlin. Acme Corporation acquired Globex in 2019.`);
    // More documents than one page of the export (16), so the pages are walked.
    for (let i = 0; i < 18; i++) await upload(a, `note-${i}.txt`, `Note ${i}: Alice Johnson met Bob Smith in Paris on day ${i}.`);
    await upload(b, 'secret.txt', `${bMarker} works at Initech in Austin.`);
    await t.app.get(IngestWorker).drain();
    await t.http.post('/v1/gb/remember').set('X-API-Key', a.apiKey.key).send({ user_id: 'u1', text: `${aMarker} lives in Lisbon.` }).expect(200);
    await t.http.post('/v1/query').set(bearer(a.member.token)).send({ query: `Where does ${aMarker} work?` }).expect(200);
  });
  afterAll(() => t.close());

  const exportAs = (token: string, path = '/v1/export') => t.http.get(path).set(bearer(token)).buffer(true).parse(asText);

  it("streams the tenant's documents, graph and usage as JSON Lines, header first and counts last", async () => {
    const res = await exportAs(a.admin.token).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="loci-export-${a.tenant.id}.jsonl"`);
    const records = recordsOf(res);

    expect(records[0]).toMatchObject({ type: 'export', format_version: 1, tenant_id: a.tenant.id, vectors: false });
    const end = records[records.length - 1];
    expect(end.type).toBe('end');
    for (const [type, count] of Object.entries(end.counts)) expect([type, ofType(records, type).length]).toEqual([type, count]);

    const documents = ofType(records, 'document');
    expect(documents).toHaveLength(20); // 19 uploads and one gb remember text
    expect(new Set(documents.map((d) => d.id)).size).toBe(20);
    expect(documents.map((d) => d.text)).toEqual(expect.arrayContaining([expect.stringContaining(aMarker)]));
    expect(documents.find((d) => d.name === 'people.txt')).toMatchObject({ kind: 'document', status: 'processed', content_hash: expect.any(String) });
    expect(ofType(records, 'graph').map((g) => g.kind).sort()).toEqual(['default', 'gb']);
    expect(ofType(records, 'chunk').length).toBeGreaterThanOrEqual(19); // one a document at least

    const entities = ofType(records, 'entity');
    expect(entities.map((e) => e.name)).toEqual(expect.arrayContaining([aMarker, 'Acme Corporation']));
    // The entity's own type column does not overwrite what the record is.
    expect(entities.find((e) => e.name === 'Acme Corporation')).toHaveProperty('entity_type');
    const entityIds = new Set(entities.map((e) => e.id));
    const edges = ofType(records, 'edge');
    expect(edges.length).toBeGreaterThan(0);
    for (const edge of edges) {
      expect(entityIds.has(edge.source_id)).toBe(true);
      expect(entityIds.has(edge.target_id)).toBe(true);
    }
    expect(ofType(records, 'entity_chunk').length).toBeGreaterThan(0);
    expect(ofType(records, 'edge_document').length).toBeGreaterThan(0);
    const usage = ofType(records, 'usage');
    expect(usage.length).toBeGreaterThan(0);
    expect(usage[0]).toMatchObject({ request_id: expect.any(String), stage: expect.any(String), cost_micros: expect.any(Number) });
    const questions = ofType(records, 'request');
    expect(questions.length).toBeGreaterThan(0);
    expect(questions.map((q) => q.route)).toContain('/v1/query');
    expect(questions[0]).toMatchObject({ request_id: expect.any(String), status: 200, steps: expect.anything() });

    // No vectors unless asked, and no other tenant's rows or ids anywhere.
    const body = res.body as string;
    // Of any column, width or tier (`embedding_256`, a bulk-loaded graph's `own_embedding`).
    expect(body).not.toMatch(/embedding(_\d+)?":/);
    expect(body).not.toContain(bMarker);
    expect(body).not.toContain(b.tenant.id);
    for (const record of records.slice(1)) expect(record).not.toHaveProperty('tenant_id');
  });

  it('includes the vectors when asked', async () => {
    const res = await exportAs(a.admin.token, '/v1/export?vectors=true').expect(200);
    const records = recordsOf(res);
    expect(records[0].vectors).toBe(true);
    const chunk = ofType(records, 'chunk')[0];
    expect(chunk.embedding).toHaveLength(1024);
    expect(typeof chunk.embedding[0]).toBe('number');
    expect(ofType(records, 'entity')[0].name_embedding).toHaveLength(1024);
  });

  it('walks every row of a table through its pages', async () => {
    const repository = t.app.get(TenantExportRepository);
    const seen: number[] = [];
    let after: Parameters<TenantExportRepository['page']>[2] = null;
    let pages = 0;
    do {
      const page = await repository.page(a.tenant.id, 'document', after, 3, false);
      seen.push(...page.rows.map((row) => Number(row.id)));
      after = page.next;
      pages++;
    } while (after !== null);
    expect(pages).toBeGreaterThanOrEqual(7);
    expect(seen).toHaveLength(20);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    const links: unknown[] = [];
    after = null;
    do {
      const page = await repository.page(a.tenant.id, 'entity_chunk', after, 2, false);
      links.push(...page.rows.map((row) => `${row.a}:${row.b}`));
      after = page.next;
    } while (after !== null);
    expect(new Set(links).size).toBe(links.length);
  });

  it("gives another tenant's admin that tenant's data only, and an operator any tenant's", async () => {
    const own = recordsOf(await exportAs(b.admin.token).expect(200));
    expect(own[0].tenant_id).toBe(b.tenant.id);
    expect(ofType(own, 'document').map((d) => d.name)).toEqual(['secret.txt']);
    expect(JSON.stringify(own)).not.toContain(aMarker);

    const byOperator = recordsOf(await exportAs(operator.token, `/v1/admin/tenants/${b.tenant.id}/export`).expect(200));
    expect(ofType(byOperator, 'document').map((d) => d.name)).toEqual(['secret.txt']);
    // `tenant_id` in the query names nothing: the tenant is always the caller's.
    const steered = await t.http.get(`/v1/export?tenant_id=${a.tenant.id}`).set(bearer(b.admin.token));
    expect(steered.status).toBe(400);
  });

  it('refuses members, API keys and operators on the tenant route', async () => {
    const member = await t.http.get('/v1/export').set(bearer(a.member.token));
    expect(member.status).toBe(403);
    expect(member.body.error.code).toBe('forbidden');
    expect((await t.http.get('/v1/export').set('X-API-Key', a.apiKey.key)).status).toBe(403);
    expect((await t.http.get('/v1/export').set(bearer(operator.token))).status).toBe(403);
    expect((await t.http.get('/v1/export')).status).toBe(401);
  });

  it.each(['yes', '1', ''])('answers a 400 for vectors=%s', async (value) => {
    const res = await t.http.get(`/v1/export?vectors=${value}`).set(bearer(a.admin.token));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
  });

  it('404s an unknown or malformed tenant on the operator route', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const res = await t.http.get(`/v1/admin/tenants/${id}/export`).set(bearer(operator.token));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
