import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings, Settings } from '@loci/config';
import { seedEmbeddedStore } from './embedded-template';
import { createFreshPostgresDatabase } from './test-database';

export interface TestEnvironment {
  settings: Settings;
  /** Drops the test database and removes the data directory. */
  cleanup(): Promise<void>;
}

/**
 * Settings for one test file, on the store the environment selects: a fresh Postgres database
 * when DATABASE_URL is set, otherwise PGlite in a temporary data directory (a copy of a migrated
 * template). REDIS_URL likewise selects Redis or the in-process store. LOCI_TEST_PGBOUNCER_URL
 * (beside DATABASE_URL) sends the app's statements through that PgBouncer.
 */
export async function createTestEnvironment(
  env: Record<string, string | undefined> = {},
  options: { replicaUrls?: string[] } = {},
): Promise<TestEnvironment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-test-'));
  const database = process.env.DATABASE_URL ? await createFreshPostgresDatabase(process.env.DATABASE_URL) : undefined;
  if (!database && env.DATABASE_URL === undefined) await seedEmbeddedStore(dataDir);
  const settings = loadSettings({
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    LOCI_DATA_DIR: dataDir,
    // Through PgBouncer (transaction pooling) when LOCI_TEST_PGBOUNCER_URL names one (.ci/run):
    // the test's database by its name there, and the direct URL for session work.
    ...(database && process.env.LOCI_TEST_PGBOUNCER_URL
      ? { DATABASE_URL: sameDatabase(process.env.LOCI_TEST_PGBOUNCER_URL, database.url), DATABASE_SESSION_URL: database.url }
      : { DATABASE_URL: database?.url }),
    // Streaming replicas of the test's own database: its name on each replica server.
    ...(database && options.replicaUrls ? { DATABASE_READ_URL: options.replicaUrls.map((url) => sameDatabase(url, database.url)).join(',') } : {}),
    LOCI_DB_POOL_MAX: '4',
    REDIS_URL: process.env.REDIS_URL,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ...env,
  });
  return {
    settings,
    async cleanup() {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `server` (a postgres:// URL of another server) naming the database of `of`. */
function sameDatabase(server: string, of: string): string {
  const url = new URL(server);
  url.pathname = new URL(of).pathname;
  return url.toString();
}
