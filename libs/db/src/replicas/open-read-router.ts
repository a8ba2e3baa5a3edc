import type { Settings } from '@loci/config';
import { Database } from '../database';
import { PostgresDatabase } from '../postgres.database';
import { ReadReplicas, replicaName } from './read-replicas';
import { ReadRouter } from './read-router';
import { SharedWriteNotes } from './shared-write-notes';

/**
 * The process's ReadRouter: over DATABASE_READ_URL's replicas (each its own pool, as large as
 * the primary's) when set beside PostgreSQL, else one that reads the primary. The first check of
 * every replica is done before it returns, so the first question already knows which are up.
 * `shared`: where graphs' notes are shared with the other processes (the limit store), if anywhere.
 */
export async function openReadRouter(settings: Pick<Settings, 'database'>, primary: Database, shared?: SharedWriteNotes): Promise<ReadRouter> {
  const { readUrls, poolMax, acquireTimeoutMs, replicaMaxLagMs, replicaMaxWaitMs } = settings.database;
  if (primary.kind !== 'postgres' || readUrls.length === 0) return new ReadRouter(primary);
  const replicas = new ReadReplicas(
    primary,
    readUrls.map((url) => ({ name: replicaName(url), database: PostgresDatabase.connect(url, poolMax, acquireTimeoutMs) })),
    replicaMaxLagMs,
  );
  await replicas.start();
  return new ReadRouter(primary, replicas, replicaMaxWaitMs, shared);
}
