import { Client } from 'pg';
import type { Response } from 'supertest';
import { Database, DATABASE } from '@loci/db';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The store's connections lost (pg_terminate_backend) or refused (the database closed to new
 * connections): every surface answers 503 store_unavailable in its own shape with Retry-After,
 * never 401 (an API key that could not be checked), limits_unavailable (a tenant row the limit
 * check could not read) or 500; and the service recovers once the store is back. Each test file
 * has a database of its own, so terminating its backends touches no other test.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
if (!onPostgres) {
  console.warn('store-unavailable e2e: the PostgreSQL part is skipped, DATABASE_URL is not set (PGlite has no connection to lose).');
}

/**
 * Waits until one of the app's connections waits for `admin`'s lock on `table`. By pg_locks, not
 * the statement's text: a prepared statement waits in Bind, before pg_stat_activity shows it.
 */
async function blockedOn(admin: Client, table: string): Promise<void> {
  for (let poll = 0; poll < 500; poll++) {
    const { rows } = await admin.query(`SELECT 1 FROM pg_locks WHERE NOT granted AND relation = $1::regclass AND pid <> pg_backend_pid()`, [table]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no statement of the app waited on ${table}`);
}

(onPostgres ? describe : describe.skip)('the store unavailable (PostgreSQL)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let admin: Client; // on the app's database: locks its tables, ends its connections
  let outside: Client; // on the server's own database: a database cannot close itself to connections
  let database: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    people = await createTenantWithPeople(t.app);
    database = new URL(t.settings.database.url!).pathname.slice(1);
    admin = new Client({ connectionString: t.settings.database.url, application_name: 'store-unavailable-e2e' });
    await admin.connect();
    outside = new Client({ connectionString: process.env.DATABASE_URL, application_name: 'store-unavailable-e2e' });
    await outside.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await outside?.end();
    await t?.close();
  });

  const apiKeyQuestion = () =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${people.apiKey.key}`).send({ query: 'Where does Alice work?', context_only: true });
  const dashboardQuestion = () =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${people.member.token}`).send({ query: 'Where does Alice work?' });
  const jwtDocuments = () => t.http.get('/v1/documents').set('Authorization', `Bearer ${people.member.token}`);
  const remember = () =>
    t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${people.apiKey.key}`).send({ user_id: 'u-store', text: 'Alice works at Acme.' });

  /** Ends every connection the app holds to its database (all but the admin's own). */
  const terminateAppBackends = () =>
    admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
      [database],
    );

  /** Sends a request whose statement on `table` waits on a lock, ends the app's connections meanwhile. */
  async function cutMidRequest(table: string, send: () => Promise<Response>): Promise<Response> {
    await admin.query('BEGIN');
    try {
      await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      // supertest sends when awaited: start it now.
      const pending = send().then((response) => response);
      await blockedOn(admin, table);
      await terminateAppBackends();
      return await pending;
    } finally {
      await admin.query('ROLLBACK');
    }
  }

  /**
   * The request succeeds again, as a client retrying after Retry-After sees it. An idle pooled
   * connection the server ended may be handed out once more before its socket's close is read;
   * such a try must itself be a 503 store_unavailable, never another failure.
   */
  async function recovers(send: () => Promise<Response>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const response = await send();
      if (response.status === 200) return;
      expect({ attempt, status: response.status, code: response.body?.detail?.error ?? response.body?.error?.code ?? response.body?.error }).toEqual({
        attempt: expect.any(Number),
        status: 503,
        code: 'store_unavailable',
      });
      if (attempt >= 5) throw new Error('the service did not recover');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const expectUnavailable = (response: Response, body: unknown) => {
    expect({ status: response.status, body: response.body }).toEqual({ status: 503, body });
    expect(response.headers['retry-after']).toBe('5');
  };
  const fastapiBody = { detail: { error: 'store_unavailable' } };
  const gbBody = { error: 'store_unavailable' };
  const genericBody = { error: { code: 'store_unavailable', message: expect.any(String) }, request_id: expect.any(String) };

  describe('a connection lost during the request', () => {
    it('answers an API-key request whose key lookup lost its connection with 503, not 401', async () => {
      expectUnavailable(await cutMidRequest('api_keys', apiKeyQuestion), fastapiBody);
      await recovers(apiKeyQuestion);
    });

    it("answers a dashboard question whose limit check lost the store with 503 store_unavailable, not limits_unavailable", async () => {
      expectUnavailable(await cutMidRequest('platform_limits', dashboardQuestion), fastapiBody);
      await recovers(dashboardQuestion);
    });

    it('answers a gb remember that lost its connection in the gb shape', async () => {
      expectUnavailable(await cutMidRequest('graphs', remember), gbBody);
      await recovers(remember);
    });
  });

  describe('the database refusing connections', () => {
    beforeAll(async () => {
      await outside.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await terminateAppBackends();
    });
    afterAll(() => outside?.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`));

    it('answers every surface with 503 store_unavailable in its shape', async () => {
      expectUnavailable(await apiKeyQuestion(), fastapiBody);
      expectUnavailable(await dashboardQuestion(), fastapiBody);
      expectUnavailable(await jwtDocuments(), genericBody);
      expectUnavailable(await remember(), gbBody);
    });

    it('recovers once the database takes connections again', async () => {
      await outside.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      for (const send of [apiKeyQuestion, dashboardQuestion, jwtDocuments, remember]) await recovers(send);
    });
  });
});

/**
 * Every connection of the pool busy (here its only one, held by a statement waiting on a lock):
 * another request waits LOCI_DB_ACQUIRE_TIMEOUT_MS for one, then answers 503 store_unavailable,
 * where it used to wait for as long as the pool stayed full. The request holding the connection
 * is not disturbed and finishes once the lock goes.
 */
(onPostgres ? describe : describe.skip)('every pooled connection busy (PostgreSQL)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;
  let admin: Client;

  beforeAll(async () => {
    t = await startTestApp({
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      LOCI_DB_POOL_MAX: '1',
      LOCI_DB_ACQUIRE_TIMEOUT_MS: '300',
      LOCI_RUN_WORKER: 'false',
    });
    people = await createTenantWithPeople(t.app);
    admin = new Client({ connectionString: t.settings.database.url, application_name: 'store-unavailable-e2e' });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  it('answers a request that found no free connection with 503 store_unavailable, and lets the holder finish', async () => {
    await admin.query('BEGIN');
    let holder: Promise<{ status: number }>;
    try {
      await admin.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
      holder = t.http
        .post('/v1/query')
        .set('Authorization', `Bearer ${people.apiKey.key}`)
        // naive: its statements are few, so with one connection and a 300 ms wait for it they
        // do not time each other out once the lock goes (a mix question sends several at once).
        .send({ query: 'Where does Alice work?', mode: 'naive', context_only: true })
        .then((response) => response);
      await blockedOn(admin, 'api_keys');
      const waiting = await t.http.get('/v1/documents').set('Authorization', `Bearer ${people.member.token}`);
      expect({ status: waiting.status, code: waiting.body?.error?.code, retryAfter: waiting.headers['retry-after'] }).toEqual({
        status: 503,
        code: 'store_unavailable',
        retryAfter: '5',
      });
    } finally {
      await admin.query('ROLLBACK');
    }
    expect((await holder).status).toBe(200);
    const after = await t.http.get('/v1/documents').set('Authorization', `Bearer ${people.member.token}`);
    expect(after.status).toBe(200);
  });
});

/**
 * The embedded store has no connection to lose, but it can stop: PGlite closed (or its
 * WebAssembly aborted) answers every statement with an error of its own, which is a store fault.
 */
(onPostgres ? describe.skip : describe)('the embedded store stopped (PGlite)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    people = await createTenantWithPeople(t.app);
    await t.app.get<Database>(DATABASE).close();
  });
  afterAll(() => t?.close());

  it('answers each surface with 503 store_unavailable, not 401 or 500', async () => {
    const apiKey = await t.http.post('/v1/query').set('Authorization', `Bearer ${people.apiKey.key}`).send({ query: 'Where?', context_only: true });
    expect({ status: apiKey.status, body: apiKey.body }).toEqual({ status: 503, body: { detail: { error: 'store_unavailable' } } });
    const remember = await t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${people.apiKey.key}`).send({ user_id: 'u', text: 'Alice works at Acme.' });
    expect({ status: remember.status, body: remember.body }).toEqual({ status: 503, body: { error: 'store_unavailable' } });
    const documents = await t.http.get('/v1/documents').set('Authorization', `Bearer ${people.member.token}`);
    expect(documents.status).toBe(503);
    expect(documents.body.error.code).toBe('store_unavailable');
    expect(documents.headers['retry-after']).toBe('5');
  });
});
