import { sql } from 'drizzle-orm';
import { Database, DATABASE, queryRows } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, recordStatements } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * How many new rows with vectors one ingestion statement carries (vectorRowsAStatement): on
 * PGlite a statement's HNSW insertions run on the thread that answers requests, so each new
 * entity and edge is a statement of its own there; PostgreSQL takes them 25 at a time. On
 * whichever store the environment selects (DATABASE_URL → PostgreSQL, otherwise PGlite).
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

/** Thirty people, each working at a company of their own: one chunk, 60 entities and 30 facts. */
const PEOPLE = Array.from({ length: 30 }, (_, i) => `Person${String.fromCharCode(65 + (i % 26))}${i} Walker`);
const TEXT = PEOPLE.map((person, i) => `${person} works at Company${i} Holdings.`).join(' ');

describe(`rows a statement in ingestion's vector writes (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
  });
  afterAll(() => t.close());

  it(`writes ${onPostgres ? 'up to 25 new entities and edges a statement' : 'each new entity and edge in a statement of its own'}`, async () => {
    const cast = await createTenantWithPeople(t.app);
    const recorder = recordStatements(t.app);
    try {
      await t.http.post('/v1/documents').set('X-API-Key', cast.apiKey.key).send({ name: 'people.txt', text: TEXT }).expect(202);
      await t.app.get(IngestWorker).drain();
    } finally {
      recorder.stop();
    }
    const [counts] = await queryRows<{ entities: number; edges: number; chunks: number }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT (SELECT count(*) FROM entities WHERE tenant_id = ${cast.tenant.id})::int AS entities,
                 (SELECT count(*) FROM edges WHERE tenant_id = ${cast.tenant.id})::int AS edges,
                 (SELECT count(*) FROM chunks WHERE tenant_id = ${cast.tenant.id})::int AS chunks`,
    );
    // The text is one chunk, so everything below was written by one chunk's transaction.
    expect(counts.chunks).toBe(1);
    expect(counts.entities).toBeGreaterThan(25);
    expect(counts.edges).toBeGreaterThan(0);
    const inserts = (table: string) => recorder.texts.filter((text) => new RegExp(`^\\s*insert into "${table}"`, 'i').test(text)).length;
    const statementsFor = (rows: number) => (onPostgres ? Math.ceil(rows / 25) : rows);
    expect(inserts('entities')).toBe(statementsFor(counts.entities));
    expect(inserts('edges')).toBe(statementsFor(counts.edges));
  });
});
