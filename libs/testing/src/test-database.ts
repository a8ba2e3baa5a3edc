import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { findMigrationsFolder, PostgresDatabase } from '@loci/db';

/**
 * A fresh Postgres database for one test file, cloned from a migrated template. The template
 * is named after a hash of the migrations, so it is built once per migration set (under an
 * advisory lock, safe across parallel jest workers) and reused until the migrations change.
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
      if (exists.rowCount) return;
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
      const stale = await client.query(
        `SELECT datname FROM pg_database WHERE datname LIKE 'loci\\_tpl\\_%' AND datname <> $1`,
        [template],
      );
      for (const row of stale.rows) await client.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('loci.test-template'))`);
    }
  });
  return template;
}

function migrationsHash(folder: string): string {
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
