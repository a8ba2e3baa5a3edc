import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { sql } from 'drizzle-orm';
import { loadSettings } from '@loci/config';
import { Database, DATABASE, GraphsRepository, queryRows } from '@loci/db';
import { gazetteer } from '@loci/geo';
import { ENTITIES_A_PAGE, GEO_BACKFILL_JOB, GeoBackfill, IngestWorker } from '@loci/ingest';
import { createApp } from '../../apps/api/src/create-app';
import { createTenantWithPeople, createTestEnvironment, TestEnvironment } from '@loci/testing';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface EntityJson {
  id: number;
  name: string;
  latitude?: number;
  longitude?: number;
}
interface NearbyJson {
  id: number;
  name: string;
}

const onPostgres = Boolean(process.env.DATABASE_URL);
const place = (name: string) => gazetteer().resolve(name)!;
/** Entities of the bulk tenant, stored as if a long history had been remembered with geo off. */
const STORED_PLACES = 1_100;

/**
 * Issue 40.9: a store remembered into with geo off, started again with LOCI_GEO_ENABLED=true.
 * The starting worker queues the geo backfill (GeoBackfill), and the place entities stored
 * before gain the gazetteer's coordinates, so the nearby search finds them; each tenant's job
 * touches its own entities only; a tenant with many entities is gone through in bounded jobs;
 * a name the gazetteer does not know is tried once. With geo on, `remember`'s reply gives the
 * coordinates it resolved. On whichever store the environment selects (DATABASE_URL →
 * PostgreSQL, otherwise PGlite).
 */
describe(`geo for what was remembered before geo was on (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let a: Tenant;
  let b: Tenant;
  let c: Tenant;

  /** The same store's settings with `env` on top. */
  const settingsWith = (env: Record<string, string | undefined>) =>
    loadSettings({
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
      LOCI_DATA_DIR: environment.settings.dataDir,
      DATABASE_URL: environment.settings.database.url,
      LOCI_DB_POOL_MAX: '4',
      REDIS_URL: process.env.REDIS_URL,
      JWT_SECRET: environment.settings.jwt.secret,
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      ...env,
    });

  /** Starts an app with `env`, runs `work`, closes it (the same store every time: a restart). */
  async function started<T>(env: Record<string, string | undefined>, work: (app: INestApplication) => Promise<T>): Promise<T> {
    const app = await createApp(settingsWith(env));
    await app.init();
    try {
      return await work(app);
    } finally {
      await app.close();
    }
  }

  const remember = (app: INestApplication, tenant: Tenant, text: string) =>
    request(app.getHttpServer())
      .post('/v1/gb/remember')
      .set('Authorization', `Bearer ${tenant.apiKey.key}`)
      .send({ user_id: 'geo', text })
      .expect(200)
      .then((response) => response.body as { entities: EntityJson[] });
  const nearParis = (app: INestApplication, tenant: Tenant) =>
    request(app.getHttpServer())
      .post('/v1/gb/query')
      .set('Authorization', `Bearer ${tenant.apiKey.key}`)
      .send({ user_id: 'geo', query: 'Who lives near Paris?', geo_nearby: true })
      .expect(200)
      .then((response) => (response.body.nearby?.nearby ?? []) as NearbyJson[]);
  const coordinates = (app: INestApplication, tenantId: string, name: string) =>
    queryRows<{ id: unknown; latitude: number | null; longitude: number | null }>(
      app.get<Database>(DATABASE).db,
      sql`SELECT id, latitude, longitude FROM entities WHERE tenant_id = ${tenantId} AND normalized_name = ${name.toLowerCase()} ORDER BY id`,
    ).then((rows) => rows.map((row) => ({ id: Number(row.id), latitude: row.latitude === null ? null : Number(row.latitude), longitude: row.longitude === null ? null : Number(row.longitude) })));
  const locatedCount = async (app: INestApplication, tenantId: string) => {
    const [row] = await queryRows<{ n: number }>(
      app.get<Database>(DATABASE).db,
      sql`SELECT count(*)::int AS n FROM entities WHERE tenant_id = ${tenantId} AND latitude IS NOT NULL`,
    );
    return Number(row.n);
  };
  const backfillJobs = (app: INestApplication, tenantId: string) =>
    queryRows<{ status: string }>(
      app.get<Database>(DATABASE).db,
      sql`SELECT status FROM jobs WHERE tenant_id = ${tenantId} AND kind = ${GEO_BACKFILL_JOB} ORDER BY id`,
    ).then((rows) => rows.map((row) => row.status));
  const progressOf = async (app: INestApplication, tenantId: string) => {
    const [row] = await queryRows<{ last_entity_id: unknown }>(
      app.get<Database>(DATABASE).db,
      sql`SELECT last_entity_id FROM geo_backfill_progress WHERE tenant_id = ${tenantId}`,
    );
    return row ? Number(row.last_entity_id) : 0;
  };

  beforeAll(async () => {
    environment = await createTestEnvironment({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    // Geo off (the default): places are stored without coordinates, and the reply shows none.
    await started({}, async (app) => {
      [a, b, c] = [await createTenantWithPeople(app), await createTenantWithPeople(app), await createTenantWithPeople(app)];
      for (const text of ['Alice lives in Versailles.', 'Bob lives in Melun.', 'Carol lives in Rouen.']) {
        const reply = await remember(app, a, text);
        expect(reply.entities.filter((e) => e.latitude !== undefined || e.longitude !== undefined)).toEqual([]);
      }
      await remember(app, b, 'Dave lives in Versailles.');
      // A long history, written straight into the store: every other one a city, the others
      // places no gazetteer knows.
      const graph = await app.get(GraphsRepository).gbGraph(c.tenant.id, 'geo', 'main');
      await app.get<Database>(DATABASE).db.execute(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name, type)
        SELECT ${c.tenant.id}::uuid, ${graph.id}::bigint, v.name, lower(v.name), 'location'
        FROM (SELECT CASE WHEN n % 2 = 0 THEN 'Lyon' ELSE 'Nowhere ' || n END AS name FROM generate_series(1, ${STORED_PLACES}) AS n) v`);
      for (const tenant of [a, b, c]) expect(await locatedCount(app, tenant.tenant.id)).toBe(0);
    });
  });

  afterAll(async () => {
    await environment?.cleanup();
  });

  it('restarted with geo on, the stored places gain coordinates in the background, tenant by tenant, and the nearby search finds them', async () => {
    await started({ LOCI_GEO_ENABLED: 'true', LOCI_RUN_WORKER: 'false' }, async (app) => {
      // Before the backfill, geo on finds nothing near Paris: the stored places have no coordinates.
      expect((await nearParis(app, a)).map((n) => n.name)).toEqual([]);

      // One tenant's run gives its own places coordinates, and no other tenant's.
      const run = await app.get(GeoBackfill).locateStoredPlaces(a.tenant.id);
      expect(run).toMatchObject({ located: 3, done: true });
      for (const name of ['Versailles', 'Melun', 'Rouen']) {
        const [row] = await coordinates(app, a.tenant.id, name);
        expect(row.latitude).toBeCloseTo(place(name).latitude, 6);
        expect(row.longitude).toBeCloseTo(place(name).longitude, 6);
      }
      expect((await coordinates(app, a.tenant.id, 'Alice'))[0].latitude).toBeNull(); // a person is not a place
      expect(await locatedCount(app, b.tenant.id)).toBe(0);
      expect(await locatedCount(app, c.tenant.id)).toBe(0);

      // The worker, as it starts: a job for each tenant with entities not tried (a is done).
      app.get(IngestWorker).start();
      expect(await app.get(GeoBackfill).queued()).toBe(2);
      await app.get(IngestWorker).drain();
      expect((await coordinates(app, b.tenant.id, 'Versailles'))[0].latitude).toBeCloseTo(place('Versailles').latitude, 6);
      expect(await locatedCount(app, c.tenant.id)).toBe(STORED_PLACES / 2);
      expect(await backfillJobs(app, a.tenant.id)).toEqual([]);
      expect(await backfillJobs(app, b.tenant.id)).toEqual(['done']);

      const found = await nearParis(app, a);
      expect(found.map((n) => n.name)).toEqual(expect.arrayContaining(['Versailles', 'Melun']));
      expect(found.map((n) => n.name)).not.toContain('Rouen'); // 111 km
      // Each tenant sees its own Versailles only.
      const [versaillesOfA] = await coordinates(app, a.tenant.id, 'Versailles');
      const [versaillesOfB] = await coordinates(app, b.tenant.id, 'Versailles');
      expect(found.map((n) => n.id)).toContain(versaillesOfA.id);
      expect(found.map((n) => n.id)).not.toContain(versaillesOfB.id);
      expect((await nearParis(app, b)).map((n) => [n.id, n.name])).toEqual([[versaillesOfB.id, 'Versailles']]);
    });
  });

  it('goes through a large tenant in bounded jobs, each queued behind the others, and tries every name once', async () => {
    await started({ LOCI_GEO_ENABLED: 'true' }, async (app) => {
      // ENTITIES_A_PAGE entities a page, five pages a job: 1,100 entities took two jobs.
      expect(ENTITIES_A_PAGE * 5).toBeLessThan(STORED_PLACES);
      const [last] = await queryRows<{ id: unknown }>(
        app.get<Database>(DATABASE).db,
        sql`SELECT max(id) AS id FROM entities WHERE tenant_id = ${c.tenant.id}`,
      );
      expect(await progressOf(app, c.tenant.id)).toBe(Number(last.id));
      // A name the gazetteer does not know stays without coordinates and is not tried again:
      // this start queued no job for the tenant, and a run finds nothing left.
      await app.get(GeoBackfill).queued();
      await app.get(IngestWorker).drain();
      expect(await backfillJobs(app, c.tenant.id)).toEqual(['done', 'done']);
      expect((await coordinates(app, c.tenant.id, 'Nowhere 1'))[0].latitude).toBeNull();
      expect(await app.get(GeoBackfill).locateStoredPlaces(c.tenant.id)).toEqual({ tried: 0, located: 0, done: true });
    });
  });

  it("with geo on, remember's reply gives the coordinates of the places it resolved", async () => {
    await started({ LOCI_GEO_ENABLED: 'true' }, async (app) => {
      const reply = await remember(app, a, 'Erin lives in Lyon.');
      const lyon = reply.entities.find((e) => e.name === 'Lyon');
      expect(lyon).toMatchObject({ latitude: place('Lyon').latitude, longitude: place('Lyon').longitude });
      const erin = reply.entities.find((e) => e.name === 'Erin');
      expect(erin).toBeDefined();
      expect(erin).not.toHaveProperty('latitude');
      expect(erin).not.toHaveProperty('longitude');
      // A place already stored and located, named again: the reply shows its coordinates too.
      const again = await remember(app, a, 'Frank lives in Versailles.');
      expect(again.entities.find((e) => e.name === 'Versailles')).toMatchObject({ latitude: place('Versailles').latitude });
    });
  });
});
