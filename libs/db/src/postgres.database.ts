import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { Pool } from 'pg';
import * as schema from './schema';
import { Database, Db, MIGRATIONS_LOCK_SQL, PoolStats, SESSION_SETTINGS } from './database';
import { markStoreFault } from './postgres-errors';
import { releaseConnectionsOfFailedTransactions } from './pooled-transactions';

/** PostgreSQL (with pgvector) through a node-postgres pool: the production store. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly db: Db;
  readonly pooled: boolean;

  /**
   * `sessionPool`: direct connections to the primary when `pool` goes through a transaction-mode
   * pooler (PgBouncer), for the work that needs one session for several statements: the
   * migrations' session advisory lock, and onOneSession's settings. Behind such a pooler the
   * lock and its unlock could land on different server sessions, leaving the lock held by a
   * pooled session for whoever is handed it next.
   */
  constructor(
    private readonly pool: Pool,
    private readonly sessionPool?: Pool,
  ) {
    this.db = drizzle(pool, { schema });
    this.pooled = sessionPool !== undefined;
    releaseConnectionsOfFailedTransactions(this.db, pool);
  }

  /**
   * `acquireTimeoutMs` bounds how long a statement waits for a connection: a free one of the
   * pool, or a new one opening. Past it the checkout fails ("timeout exceeded when trying to
   * connect"), a store fault: the request answers 503 and a job retries, where it used to wait
   * for as long as the pool stayed full. 0 waits without end (tools and benches).
   */
  static connect(url: string, poolMax: number, acquireTimeoutMs = 0, sessionUrl?: string): PostgresDatabase {
    const pool = openPool(url, poolMax, acquireTimeoutMs);
    // Two: a migration and a bulk load's index build at most at once.
    return new PostgresDatabase(pool, sessionUrl ? openPool(sessionUrl, 2, acquireTimeoutMs) : undefined);
  }

  async migrate(migrationsFolder: string): Promise<void> {
    const client = await (this.sessionPool ?? this.pool).connect();
    try {
      await client.query(MIGRATIONS_LOCK_SQL.lock);
      try {
        await migrate(drizzle(client, { schema }), { migrationsFolder });
      } finally {
        await client.query(MIGRATIONS_LOCK_SQL.unlock);
      }
    } finally {
      client.release();
    }
  }

  async onOneSession<T>(work: (session: Db) => Promise<T>): Promise<T> {
    const client = await (this.sessionPool ?? this.pool).connect();
    let failure: Error | undefined;
    try {
      return await work(drizzle(client, { schema }));
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // Released with the error, pg-pool closes it: a session whose work failed half-way may
      // keep a setting it was to reset.
      client.release(failure);
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  poolStats(): PoolStats {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.pool.options.max ?? 10 };
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.sessionPool?.end()]);
  }
}

function openPool(url: string, max: number, acquireTimeoutMs: number): Pool {
  const pool = new Pool({ connectionString: withSessionSettings(url), max, connectionTimeoutMillis: acquireTimeoutMs });
  // An idle client that loses its connection emits 'error'; without a listener that would
  // crash the process. The pool replaces the client on the next checkout.
  pool.on('error', () => undefined);
  // A checked-out client (a transaction's) has no pool listener: the server ending its
  // connection (a restart, pg_terminate_backend) emitted an unhandled 'error' that ended the
  // process. The caller learns of it through its query; release drops the dead client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  markCheckoutFaults(pool);
  return pool;
}

/**
 * A failed checkout (connection refused, reset, timed out) surfaces as a bare socket error, the
 * same as Redis's, and a transaction's checkout is not wrapped by drizzle: marking it lets
 * isStoreUnavailable() tell the store's faults from others. pool.query() checks out through
 * the same method, so its failures are marked too.
 */
function markCheckoutFaults(pool: Pool): void {
  const connect = pool.connect.bind(pool) as (callback?: (error: Error | undefined, ...rest: unknown[]) => void) => unknown;
  (pool as unknown as { connect: typeof connect }).connect = (callback) => {
    if (callback) return connect((error, ...rest) => callback(error && markStoreFault(error), ...rest));
    return (connect() as Promise<unknown>).catch((error: unknown) => {
      throw markStoreFault(error);
    });
  };
}

/**
 * The URL with SESSION_SETTINGS added to its `options` startup parameter (after any the URL
 * already carries), so every connection of the pool starts with them at no extra round trip.
 */
export function withSessionSettings(url: string): string {
  const parsed = new URL(url);
  const ours = Object.entries(SESSION_SETTINGS).map(([name, value]) => `-c ${name}=${value}`);
  const own = parsed.searchParams.get('options');
  parsed.searchParams.set('options', [own, ...ours].filter(Boolean).join(' '));
  return parsed.toString();
}
