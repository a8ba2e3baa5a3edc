import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { findMigrationsFolder, PostgresDatabase } from '@loci/db';

/**
 * A fresh Postgres database for one test file, cloned from a migrated template. The template
 * is named after a hash of the migrations, so it is built once per migration set (under an
 * advisory lock, safe across parallel jest workers) and reused until the migrations change.
 * Templates of other migration sets are dropped once unused for TEMPLATE_IDLE_MS: another
 * checkout's run on the same server (a teammate's branch with a new migration) keeps its own.
 */
export async function createFreshPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = await ensureTemplate(baseUrl);
  const name = `loci_test_${randomBytes(6).toString('hex')}`;
  await withAdminClient(baseUrl, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`));
  return {
    url: databaseUrl(baseUrl, name),
    drop: async () => {
      await withAdminClient(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** An empty database (no migrations applied), for tests of the migrator itself. */
export async function createEmptyPostgresDatabase(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `loci_empty_${randomBytes(6).toString('hex')}`;
  await withAdminClient(baseUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: databaseUrl(baseUrl, name),
    drop: async () => {
      await withAdminClient(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

async function ensureTemplate(baseUrl: string): Promise<string> {
  const folder = findMigrationsFolder();
  const template = `loci_tpl_${migrationsHash(folder)}`;
  await withAdminClient(baseUrl, async (client) => {
    await client.query(`SELECT pg_advisory_lock(hashtext('loci.test-template'))`);
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount) return await markUsed(client, template);
      const building = `${template}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const database = PostgresDatabase.connect(databaseUrl(baseUrl, building), 2);
      try {
        await database.migrate(folder);
      } finally {
        await database.close();
      }
      // Renamed only once complete, so a run that died half-way never leaves a bad template.
      await client.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
      await markUsed(client, template);
      await dropIdleTemplates(client, template, Date.now());
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('loci.test-template'))`);
    }
  });
  return template;
}

/** How long a template of another migration set is kept after its last use. */
export const TEMPLATE_IDLE_MS = 60 * 60_000;

/** A template's last use, as its database comment (milliseconds since the epoch). */
async function markUsed(client: Client, template: string): Promise<void> {
  await client.query(`COMMENT ON DATABASE ${template} IS '${Date.now()}'`);
}

/**
 * Drops the test templates other than `keep` that were last used TEMPLATE_IDLE_MS or more before
 * `now`, or carry no mark (made by an older checkout). Never one in use: a run cloning it marked
 * it within the hour, so a concurrent run of another migration set is left alone. `pattern`
 * (LIKE) narrows the candidates (tests).
 */
export async function dropIdleTemplates(client: Client, keep: string, now: number, pattern = 'loci\\_tpl\\_%'): Promise<string[]> {
  const { rows } = await client.query<{ datname: string; mark: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS mark FROM pg_database
      WHERE datname LIKE $2 AND datname NOT LIKE '%\\_building' AND datname <> $1`,
    [keep, pattern],
  );
  const idle = rows.filter((row) => !(Number(row.mark) > now - TEMPLATE_IDLE_MS)).map((row) => row.datname);
  for (const name of idle) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  return idle;
}

/** A migration set's name: the hash of its files' names and contents. */
export function migrationsHash(folder: string): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.sql')).sort()) {
    hash.update(file).update(readFileSync(join(folder, file)));
  }
  return hash.digest('hex').slice(0, 12);
}

function databaseUrl(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdminClient<T>(baseUrl: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
