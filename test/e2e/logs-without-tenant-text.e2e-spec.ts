import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { Database, DATABASE } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Tenant text stays out of the logs (issue 15.4). The app's log lines are captured on error
 * paths that used to write the tenant's text: a statement failing in ingestion (drizzle's
 * message ends with the statement's parameters, here the chunk's text), a gb remember failing
 * in the store (its user id, its text), requests refused by validation (bodies, query strings).
 * Store faults come from CHECK constraints this file adds to its own database, so the failing
 * statements are the real ones. None of the distinctive strings may appear in any line, while
 * the error's class, SQLSTATE and constraint do.
 */
const CHUNK_TEXT = 'Wombat-9931 keeps the ledger of the northern warehouse.';
const GB_USER = 'zz-numbat-4471';
const GB_TEXT = 'Potoroo-5521 moved to Hobart in spring.';
const BODY_TEXT = 'Bilby-8812 confided the safe combination.';
const QUERY_VALUE = 'Quoll-7713';
const QUESTION = 'Where does Dunnart-6614 keep the spare keys?';
const MARKERS = ['Wombat-9931', 'numbat-4471', 'Potoroo-5521', 'Bilby-8812', QUERY_VALUE, 'Dunnart-6614'];

describe('logs on error paths hold no tenant text', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  const lines: string[] = [];
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp({ LOG_LEVEL: 'trace', ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined }, { logDestination: destination });
    people = await createTenantWithPeople(t.app);
    const { db } = t.app.get<Database>(DATABASE);
    await db.execute(sql.raw(`ALTER TABLE chunks ADD CONSTRAINT test_no_wombat CHECK (text NOT LIKE '%Wombat-%')`));
    await db.execute(sql.raw(`ALTER TABLE graphs ADD CONSTRAINT test_no_zz_users CHECK (gb_user_id NOT LIKE 'zz-%')`));
    await db.execute(sql.raw(`ALTER TABLE documents ADD CONSTRAINT test_no_potoroo CHECK (text NOT LIKE '%Potoroo-%')`));
  });
  afterAll(() => t?.close());

  it('an ingestion failing in the store logs the constraint, not the chunk', async () => {
    await t.app.get(DocumentsService).submit(people.tenant.id, { name: 'ledger.txt', mimeType: 'text/plain', text: CHUNK_TEXT });
    await t.app.get(IngestWorker).drain();

    const failures = records()
      .map((r) => String(r.msg))
      .filter((msg) => msg.includes('test_no_wombat'));
    expect(failures.length).toBeGreaterThan(0);
    for (const msg of failures) {
      expect(msg).toContain('DrizzleQueryError: Failed query (insert into "chunks"');
      expect(msg).toContain('← DatabaseError [23514]: new row for relation "chunks" violates check constraint "test_no_wombat"');
    }
    expectNoMarkers();
  });

  it('a gb remember failing in the store logs the error record, not the user id or the text', async () => {
    const remember = (body: object) => t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${people.apiKey.key}`).send(body);
    expect((await remember({ user_id: GB_USER, text: 'Alice works at Acme.' })).status).toBe(500);
    expect((await remember({ user_id: 'u-plain', text: GB_TEXT })).status).toBe(500);

    const logged = records().filter((r) => r.context === 'HttpExceptionFilter').map((r) => r.err as { type: string; cause?: { sqlState?: string; constraint?: string } });
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'DrizzleQueryError', cause: expect.objectContaining({ sqlState: '23514', constraint: 'test_no_zz_users' }) }),
        expect.objectContaining({ type: 'DrizzleQueryError', cause: expect.objectContaining({ sqlState: '23514', constraint: 'test_no_potoroo' }) }),
      ]),
    );
    expectNoMarkers();
  });

  it("requests refused by validation log their route and the query's names, not bodies or values", async () => {
    await t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${people.apiKey.key}`).send({ user_id: 42, text: BODY_TEXT }).expect(400);
    await t.http.get(`/v1/documents?limit=${QUERY_VALUE}`).set('Authorization', `Bearer ${people.member.token}`).expect(400);
    await t.http.post('/v1/query').set('Authorization', `Bearer ${people.member.token}`).send({ query: QUESTION, mode: 'sideways' }).expect(422);

    const requests = records()
      .filter((r) => r.res)
      .map((r) => ({ url: (r.req as { url?: string }).url, route: r.route, status: (r.res as { statusCode: number }).statusCode }));
    expect(requests).toEqual(
      expect.arrayContaining([
        { url: '/v1/gb/…', route: '/v1/gb/remember', status: 400 },
        { url: '/v1/documents?limit=…', route: '/v1/documents', status: 400 },
        { url: '/v1/query', route: '/v1/query', status: 422 },
      ]),
    );
    expectNoMarkers();
  });

  function expectNoMarkers(): void {
    const leaks = lines.filter((line) => MARKERS.some((marker) => line.includes(marker)));
    expect(leaks).toEqual([]);
  }
});
