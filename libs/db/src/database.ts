import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

/** The drizzle handle repositories use; the same type over node-postgres and PGlite. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type DatabaseKind = 'postgres' | 'pglite';

/** The store behind the DATABASE token: one of two drivers, chosen by settings at boot. */
export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Db;
  /** Applies pending migrations while holding the migrations advisory lock. */
  migrate(migrationsFolder: string): Promise<void>;
  /** Throws when the store cannot answer a trivial query. */
  ping(): Promise<void>;
  /** The connection pool's state (PostgreSQL); PGlite has one in-process session and none. */
  poolStats?(): PoolStats;
  /**
   * Runs `work` on one pooled connection, outside any transaction (PostgreSQL): for session
   * settings a statement that cannot run in a transaction needs (CREATE INDEX CONCURRENTLY's
   * memory). `work` must leave the session as it found it; a connection that failed is
   * discarded rather than returned to the pool.
   */
  onOneSession?<T>(work: (session: Db) => Promise<T>): Promise<T>;
  /**
   * True when `db` goes through a transaction-mode pooler (PgBouncer; DATABASE_SESSION_URL set):
   * consecutive statements may run on different server sessions, so nothing may be prepared by
   * name there (statementName).
   */
  readonly pooled?: boolean;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections open, idle among them, and checkouts waiting for one. */
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export const DATABASE = Symbol('DATABASE');

/**
 * Settings of every session Loci opens: in the startup packet of each pooled PostgreSQL
 * connection (`options`), with a SET on PGlite's one session.
 *
 * `hnsw.iterative_scan`: every vector search filters the rows an HNSW index yields (tenant,
 * graph, live, visible), so the scan must go on past `hnsw.ef_search` candidates until enough
 * rows pass. Set once per connection, a search is one statement instead of
 * BEGIN / SET LOCAL / search / COMMIT (three round trips fewer per search). Behind a pooler that
 * does not pass startup options (PgBouncer), set it for the role instead
 * (`ALTER ROLE … SET hnsw.iterative_scan = relaxed_order`, libs/retrieval/README.md).
 */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = Object.freeze({
  'hnsw.iterative_scan': 'relaxed_order',
});

/**
 * Every instance that migrates takes this session-level advisory lock first, so two servers
 * starting together apply each migration exactly once; the second waits, then finds nothing
 * to do. hashtext() keeps the key readable.
 */
export const MIGRATIONS_LOCK_SQL = {
  lock: `SELECT pg_advisory_lock(hashtext('loci.migrations'))`,
  unlock: `SELECT pg_advisory_unlock(hashtext('loci.migrations'))`,
};

/**
 * Runs raw SQL and returns its rows. Both drivers answer `{ rows }`, but drizzle's shared
 * PgDatabase type cannot say so, hence this one cast.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result: unknown = await db.execute(query);
  return (result as { rows: T[] }).rows;
}

/**
 * The name a hot statement is prepared under: its own, or '' (an unnamed statement, parsed with
 * each execution) behind a transaction pooler. node-postgres parses a named statement once per
 * connection it knows, but behind PgBouncer (before 1.21) the next execution may land on a
 * server session that never parsed it ("prepared statement … does not exist").
 */
export function statementName(database: Pick<Database, 'pooled'>, name: string): string {
  return database.pooled ? '' : name;
}
