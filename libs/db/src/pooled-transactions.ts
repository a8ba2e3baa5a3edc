import { drizzle } from 'drizzle-orm/node-postgres';
import type { Pool, PoolClient } from 'pg';
import type { Db } from './database';
import { isStoreUnavailable } from './postgres-errors';
import * as schema from './schema';

/**
 * Replaces `db.transaction` on a pool-backed drizzle instance with one that always gives its
 * connection back.
 *
 * drizzle-orm's node-postgres session (0.45.x, still so in its 1.0 candidates; upstream issues
 * 6023, 6241) checks a client out of the pool and sends BEGIN before entering the try/finally
 * that releases it. When BEGIN fails, the client is never released. That happens whenever the pool
 * hands out an idle connection the server has ended (a restart, pg_terminate_backend, a pooler
 * closing it) before its socket's close was read. Each such transaction cost the pool one slot
 * for the life of the process: a few of them and every request waited for a connection forever,
 * and shutdown's pool.end() never returned.
 *
 * Here the client is checked out by us, drizzle runs the transaction on that one client (a
 * client session never releases anything), and our finally releases it whatever failed. A
 * client whose connection broke is released with the error, so pg-pool discards it rather than
 * idling it. Nested transactions (savepoints) are drizzle's own and unaffected.
 */
export function releaseConnectionsOfFailedTransactions(db: Db, pool: Pool): void {
  // One drizzle instance per pooled connection: building one costs ~0.1 ms (the schema's
  // relational config), and pg-pool reuses its client objects for the connection's life.
  const onConnection = new WeakMap<PoolClient, Db>();
  const transaction: Db['transaction'] = async (work, config) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      let session = onConnection.get(client);
      if (!session) {
        session = drizzle(client, { schema });
        onConnection.set(client, session);
      }
      return await session.transaction(work, config);
    } catch (error) {
      if (isStoreUnavailable(error)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  };
  Object.defineProperty(db, 'transaction', { value: transaction, configurable: true, writable: true });
}
