import { sql } from 'drizzle-orm';
import { Client, Pool } from 'pg';
import { isStoreUnavailable, PostgresDatabase, queryRows } from '@loci/db';

/**
 * A transaction gives its pooled connection back whatever failed. The case that leaked: the pool
 * hands out an idle connection the server has ended before this process read the close, so BEGIN
 * itself fails (drizzle sent BEGIN outside the try/finally that releases the client). The pool has
 * one connection here, so a leak shows as the next transaction waiting forever.
 *
 * PostgreSQL only: PGlite has one in-process session and no pool.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
if (!onPostgres) console.warn('pooled transactions contract: skipped, DATABASE_URL is not set (PGlite has no pool).');

const backendPid = (db: PostgresDatabase['db']) =>
  queryRows<{ pid: number }>(db, sql`SELECT pg_backend_pid() AS pid`).then(([row]) => Number(row.pid));

/** Fails the test with a reason instead of letting jest's timeout speak for a hung checkout. */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

(onPostgres ? describe : describe.skip)('transactions on a pool of one connection (PostgreSQL)', () => {
  let admin: Client;
  let pool: Pool;
  let database: PostgresDatabase;
  /** The pool's connections as it opens them, to hold one's socket still. */
  let connections: Client[];

  beforeAll(async () => {
    admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
  });
  afterAll(() => admin?.end());

  beforeEach(() => {
    connections = [];
    pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    pool.on('error', () => undefined);
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
      connections.push(client);
    });
    database = new PostgresDatabase(pool);
  });
  afterEach(() => within(10_000, database.close(), 'closing the pool'));

  it('gives the connection back when BEGIN fails on a connection the server ended', async () => {
    const first = await database.db.transaction((tx) => backendPid(tx as unknown as PostgresDatabase['db']));
    expect(database.poolStats()).toMatchObject({ total: 1, idle: 1 });

    // The race, made certain: this process must not read the close before the pool hands the
    // connection out again. A paused socket delivers nothing until resumed.
    const socket = (connections[0] as unknown as { connection: { stream: NodeJS.ReadableStream } }).connection.stream;
    socket.pause();
    await admin.query('SELECT pg_terminate_backend($1, 10000)', [first]);

    let ran = false;
    const failed = database.db.transaction(async () => {
      ran = true;
    });
    setTimeout(() => socket.resume(), 50);
    const error = await within(10_000, failed.then(() => undefined, (reason: unknown) => reason), 'the transaction on the ended connection');
    expect({ ran, storeFault: isStoreUnavailable(error) }).toEqual({ ran: false, storeFault: true });

    // The only connection came back (and was discarded): the next transaction gets a new one.
    const second = await within(10_000, database.db.transaction((tx) => backendPid(tx as unknown as PostgresDatabase['db'])), 'the next transaction');
    expect(second).not.toBe(first);
    expect(database.poolStats()).toMatchObject({ total: 1, idle: 1, waiting: 0 });
  });

  it('keeps a healthy connection for the next transaction when the work fails or commits', async () => {
    const first = await database.db.transaction((tx) => backendPid(tx as unknown as PostgresDatabase['db']));
    await expect(
      database.db.transaction(async (tx) => {
        await queryRows(tx as unknown as PostgresDatabase['db'], sql`SELECT 1`);
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    const afterFailure = await database.db.transaction((tx) => backendPid(tx as unknown as PostgresDatabase['db']));
    expect(afterFailure).toBe(first);
    // Rolled back: nothing of the failed transaction is left open on the connection.
    const [state] = await queryRows<{ open: boolean }>(database.db, sql`SELECT now() <> statement_timestamp() AS open`);
    expect(state.open).toBe(false);
    expect(database.poolStats()).toMatchObject({ total: 1, idle: 1, waiting: 0 });
  });
});
