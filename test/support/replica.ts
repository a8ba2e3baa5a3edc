import { Client } from 'pg';
import type { TestApp } from './test-app';

/**
 * The streaming replica of the test server the read-replica e2e files run on: LOCI_TEST_REPLICA_URL
 * beside DATABASE_URL (.ci/replica.sh starts one of 127.0.0.1:5432 on :5433; .ci/run does).
 */
export const replicaUrl = process.env.DATABASE_URL ? process.env.LOCI_TEST_REPLICA_URL || undefined : undefined;

export const REPLICA_SKIP_REASON =
  'SKIPPED, set DATABASE_URL and LOCI_TEST_REPLICA_URL (.ci/replica.sh starts a replica of 127.0.0.1:5432 on :5433; .ci/run does)';

/** The replica of `app`'s database: statements on it, its replay paused and resumed, the app's view of it (/readyz). */
export function replicaOf(app: TestApp) {
  const database = new URL(app.settings.database.url!).pathname.slice(1);
  const query = async <T>(text: string): Promise<T[]> => {
    const url = new URL(replicaUrl!);
    url.pathname = `/${database}`;
    const client = new Client({ connectionString: url.toString() });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    query,
    pauseReplay: () => query('SELECT pg_wal_replay_pause()'),
    resumeReplay: () => query('SELECT pg_wal_replay_resume()'),
    /**
     * Resolves once /readyz reports the first replica `wanted`; fails past `ms` saying what it
     * reported last (a replica down says why: not yet holding the app's new database, refused...).
     */
    async becomes(wanted: string, ms = 20_000): Promise<void> {
      let last: unknown;
      await until(
        async () => {
          last = await readyzReplica(app);
          return (last as { status: string }).status === wanted;
        },
        wanted,
        ms,
        () => JSON.stringify(last),
      );
    },
  };
}

/** The first replica as /readyz reports it now. */
export async function readyzReplica(app: TestApp): Promise<{ status: string; lag_ms: number | null; reason?: string }> {
  const body = (await app.http.get('/readyz')).body as {
    details: { replicas: { replicas: Array<{ status: string; lag_ms: number | null; reason?: string }> } };
  };
  return body.details.replicas.replicas[0];
}

/** Resolves once `condition` holds, looking every 50 ms; fails past `ms`, with what `lastSeen` says when given. */
export async function until(condition: () => Promise<boolean>, what: string, ms = 20_000, lastSeen?: () => string): Promise<void> {
  for (const deadline = Date.now() + ms; !(await condition()); ) {
    if (Date.now() > deadline) throw new Error(`not ${what} within ${ms} ms${lastSeen ? `; last seen: ${lastSeen()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
