import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createFreshPostgresDatabase, dropIdleTemplates, TEMPLATE_IDLE_MS } from '@loci/testing';

/**
 * The test databases' templates on a shared PostgreSQL: a run whose migrations differ (another
 * checkout on the same server) drops only the templates nobody used for TEMPLATE_IDLE_MS, never
 * one that a concurrent run is cloning from. PostgreSQL only: the embedded store has no templates.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const describeOnPostgres = onPostgres ? describe : describe.skip;

describeOnPostgres('test database templates', () => {
  let client: Client;
  const suffix = randomBytes(4).toString('hex');
  const names = { idle: `loci_tpl_idle${suffix}`, busy: `loci_tpl_busy${suffix}`, unmarked: `loci_tpl_unmarked${suffix}`, building: `loci_tpl_x${suffix}_building` };

  beforeAll(async () => {
    client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
  });
  afterAll(async () => {
    for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.end();
  });

  it('drops the templates of other migration sets idle for an hour or unmarked, and keeps the recent and the one being built', async () => {
    const now = Date.now();
    for (const name of Object.values(names)) await client.query(`CREATE DATABASE ${name}`);
    await client.query(`COMMENT ON DATABASE ${names.idle} IS '${now - TEMPLATE_IDLE_MS}'`);
    await client.query(`COMMENT ON DATABASE ${names.busy} IS '${now - TEMPLATE_IDLE_MS + 60_000}'`);

    // Only this test's databases are candidates: the real templates belong to the runs using them.
    const dropped = await dropIdleTemplates(client, 'loci_tpl_kept', now, `loci\\_tpl\\_%${suffix}%`);

    expect(dropped).toEqual(expect.arrayContaining([names.idle, names.unmarked]));
    expect(dropped).not.toContain(names.busy);
    expect(dropped).not.toContain(names.building);
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname = ANY($1)`, [Object.values(names)]);
    expect(rows.map((r) => r.datname).sort()).toEqual([names.building, names.busy].sort());
  });

  it('marks the template a run clones from as used', async () => {
    // Every test database is cloned through ensureTemplate, which marks the template it used.
    const before = Date.now();
    const fresh = await createFreshPostgresDatabase(process.env.DATABASE_URL!);
    try {
      const { rows } = await client.query<{ mark: string | null }>(
        `SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname LIKE 'loci\\_tpl\\_%'`,
      );
      expect(rows.some((row) => Number(row.mark) >= before)).toBe(true);
    } finally {
      await fresh.drop();
    }
  });
});
