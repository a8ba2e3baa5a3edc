import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { inSpan, tracingEnabled } from '@loci/common';
import { vector } from '@electric-sql/pglite-pgvector';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import * as schema from './schema';
import { Database, Db, MIGRATIONS_LOCK_SQL, SESSION_SETTINGS } from './database';
import { DataDirectoryLock, lockDataDirectory } from './data-directory-lock';

/**
 * Embedded PostgreSQL (PGlite, WebAssembly) with pgvector: the zero-settings default.
 * One process owns the data directory; it is not for multi-instance deployments.
 */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  readonly db: Db;

  private constructor(
    private readonly client: PGlite,
    private readonly lock: DataDirectoryLock | undefined,
  ) {
    this.db = drizzle(client, { schema });
  }

  /**
   * `dataDir` undefined keeps everything in memory (used by tests). A directory is this
   * process's until close(): another process holding it throws DataDirectoryInUseError.
   */
  static async open(dataDir?: string): Promise<PgliteDatabase> {
    let lock: DataDirectoryLock | undefined;
    let client: PGlite | undefined;
    if (dataDir) {
      mkdirSync(dataDir, { recursive: true });
      lock = await lockDataDirectory(dataDir, (error) => {
        // Another process took the directory while this one stalled: stop writing to it, so
        // the two do not overwrite each other's pages. Requests fail from here on (503).
        console.error(JSON.stringify({ level: 'fatal', msg: 'lost the lock on the embedded store; closing it', dataDir, err: error.message }));
        void client?.close();
      });
    }
    try {
      client = await PGlite.create({ dataDir, extensions: { vector } });
      for (const [name, value] of Object.entries(SESSION_SETTINGS)) await client.query(`SET ${name} = ${value}`);
    } catch (error) {
      await lock?.release();
      throw error;
    }
    yieldBetweenMessages(client);
    if (tracingEnabled()) traceStatements(client);
    return new PgliteDatabase(client, lock);
  }

  /** Tail of the queue of migrate() calls on this instance. */
  private migrating: Promise<void> = Promise.resolve();

  async migrate(migrationsFolder: string): Promise<void> {
    // The advisory lock cannot order two callers in this process: PGlite has one session, and a
    // session-level advisory lock is re-entrant within its session. So callers queue here.
    const run = this.migrating.then(() => this.migrateUnderLock(migrationsFolder));
    this.migrating = run.catch(() => undefined);
    return run;
  }

  private async migrateUnderLock(migrationsFolder: string): Promise<void> {
    // PGlite has one connection, so the lock is only for symmetry with Postgres (and cheap).
    await this.client.query(MIGRATIONS_LOCK_SQL.lock);
    try {
      await migrate(drizzle(this.client, { schema }), { migrationsFolder });
    } finally {
      await this.client.query(MIGRATIONS_LOCK_SQL.unlock);
    }
  }

  async ping(): Promise<void> {
    await this.client.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (!this.client.closed) await this.client.close();
    await this.lock?.release();
  }
}

/**
 * PGlite runs SQL synchronously on the calling thread, and a transaction's statements chain
 * through promises that settle at once, so the event loop never turned between them: a chunk's
 * write (dozens of statements, inserting into HNSW indexes up to 2 s each in WebAssembly) held
 * every request, /healthz included, for 20 s. Each wire message now waits for the loop's next
 * turn, so requests are served between statements and the longest hold is one statement.
 */
function yieldBetweenMessages(client: PGlite): void {
  const run = client.execProtocolStream.bind(client);
  client.execProtocolStream = async (...args: Parameters<PGlite['execProtocolStream']>) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return run(...args);
  };
}

/**
 * PGlite is not node-postgres, so no instrumentation sees its statements: with tracing on, each
 * statement made inside a trace (a request's, a job's) is a span of its own, named and described
 * as the pg instrumentation's are (the SQL text, never its parameters). Every statement of Loci
 * goes through `query`, of the instance or of a transaction (drizzle's session). With tracing
 * off nothing is wrapped.
 */
function traceStatements(client: PGlite): void {
  client.query = traced(client.query.bind(client));
  const transaction = client.transaction.bind(client);
  client.transaction = <T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      tx.query = traced(tx.query.bind(tx));
      return callback(tx);
    });
}

function traced<Q extends (sql: string, ...rest: never[]) => Promise<unknown>>(query: Q): Q {
  return ((sql: string, ...rest: never[]) => {
    const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
    return inSpan(
      `pglite.query:${operation}`,
      { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': sql, 'loci.store': 'pglite' },
      () => query(sql, ...rest),
      { kind: 'client', onlyInTrace: true },
    );
  }) as Q;
}
