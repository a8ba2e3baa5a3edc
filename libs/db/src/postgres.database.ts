import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { Pool } from 'pg';
import * as schema from './schema';
import { Database, Db, MIGRATIONS_LOCK_SQL } from './database';

/** PostgreSQL (with pgvector) through a node-postgres pool: the production store. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  readonly db: Db;

  constructor(private readonly pool: Pool) {
    this.db = drizzle(pool, { schema }) as unknown as Db;
  }

  static connect(url: string, poolMax: number): PostgresDatabase {
    const pool = new Pool({ connectionString: url, max: poolMax });
    // An idle client that loses its connection emits 'error'; without a listener that would
    // crash the process. The pool replaces the client on the next checkout.
    pool.on('error', () => undefined);
    return new PostgresDatabase(pool);
  }

  async migrate(migrationsFolder: string): Promise<void> {
    const client = await this.pool.connect();
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

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
