import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { Database, DATABASE, queryRows } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const bouncerUrl = process.env.DATABASE_URL ? process.env.LOCI_TEST_PGBOUNCER_URL || undefined : undefined;
const title = bouncerUrl
  ? 'the API through PgBouncer in transaction pooling (LOCI_TEST_PGBOUNCER_URL)'
  : 'the API through PgBouncer: SKIPPED, set DATABASE_URL and LOCI_TEST_PGBOUNCER_URL (.ci/pgbouncer.sh starts one on 127.0.0.1:6432; .ci/run does)';

/**
 * DATABASE_URL through a real PgBouncer in transaction pooling mode, DATABASE_SESSION_URL direct:
 * the statements of requests go through the pooler (its own counters say so), the hot statements
 * that are prepared by name elsewhere run unnamed (a named one would land on server sessions that
 * never parsed it), the session setting retrieval needs reaches every server session, and the
 * work that needs one session (migrations' lock) uses the direct connection. .ci/run also runs
 * the main e2e files (questions, remember, documents, auth) through it.
 */
(bouncerUrl ? describe : describe.skip)(title, () => {
  let t: TestApp;
  let a: Awaited<ReturnType<typeof createTenantWithPeople>>;

  /** PgBouncer's counters for the test's database (its admin console, SHOW STATS). */
  const transactionsThroughBouncer = async (): Promise<number> => {
    const admin = new URL(bouncerUrl!);
    admin.pathname = '/pgbouncer';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ database: string; total_xact_count: string }>('SHOW STATS');
      const name = new URL(t.settings.database.url!).pathname.slice(1);
      return Number(rows.find((row) => row.database === name)?.total_xact_count ?? 0);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    t = await startTestApp();
    a = await createTenantWithPeople(t.app);
  });
  afterAll(() => t?.close());

  it('runs behind the pooler: DATABASE_URL is PgBouncer, migrations and session work go direct', () => {
    expect(new URL(t.settings.database.url!).port).toBe(new URL(bouncerUrl!).port);
    expect(t.settings.database.sessionUrl).toBeDefined();
    expect(t.app.get<Database>(DATABASE).pooled).toBe(true);
  });

  it('answers API-key and dashboard requests at once through it, the pooler counting their transactions', async () => {
    const before = await transactionsThroughBouncer();
    // Forty requests at once on a pool of four server sessions: each request's credential
    // lookup (a hot statement, prepared by name without a pooler) lands on whichever session is free.
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.http.get('/v1/me').set('Authorization', `Bearer ${i % 2 === 0 ? a.apiKey.key : a.admin.token}`),
      ),
    );
    expect(responses.map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
    // PgBouncer writes its counters out every stats_period (60 s by default)… but totals are
    // updated as transactions end, which is what SHOW STATS reads.
    expect(await transactionsThroughBouncer()).toBeGreaterThanOrEqual(before + 40);
  });

  it('gives every server session the vector search setting (connect_query), which the startup options no longer carry', async () => {
    const database = t.app.get<Database>(DATABASE);
    const values = await Promise.all(
      Array.from({ length: 8 }, async () => (await queryRows<{ value: string | null }>(database.db, sql`SELECT current_setting('hnsw.iterative_scan', true) AS value`))[0].value),
    );
    expect(new Set(values)).toEqual(new Set(['relaxed_order']));
  });

  it('remembers and answers through it (gb), with the advisory locks of entity names inside transactions', async () => {
    const remember = (text: string) =>
      t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${a.apiKey.key}`).send({ user_id: 'pooled', text }).expect(200);
    await Promise.all([remember('Alice Johnson works at Acme Corporation.'), remember('Bob Stone works at Acme Corporation.')]);
    const response = await t.http
      .post('/v1/gb/query')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .send({ user_id: 'pooled', query: 'Where does Alice Johnson work?' })
      .expect(200);
    expect(response.body.answer).toContain('Acme');
  });
});
