import { sql } from 'drizzle-orm';
import { Database, DATABASE, InferencesRepository, queryRows } from '@loci/db';
import { gazetteer, haversineKm } from '@loci/geo';
import { GbQueryService } from '@loci/retrieval';
import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;
interface NearbyJson {
  id: number;
  name: string;
  distance_km: number;
  anchor: string;
  latitude: number;
  longitude: number;
}
interface AnchorJson {
  name: string;
  entity_id: number;
  latitude: number;
  longitude: number;
  source: string;
}

const place = (name: string) => gazetteer().resolve(name)!;
/** The distance the response must give: the great circle between the gazetteer's two points. */
const km = (a: string, b: string) => Math.round(haversineKm(place(a), place(b)) * 100) / 100;

/**
 * gb query's nearby search with LOCI_GEO_ENABLED=true on the embedded default (local
 * provider: detect_geo by the NLP library); on PostgreSQL when DATABASE_URL is set.
 */
describe('POST /v1/gb/query with geo on', () => {
  let t: TestApp;
  let a: Tenant;
  let b: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_GEO_ENABLED: 'true' });
    [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    // Paris → Versailles 16 km, Melun 44 km, Rouen 111 km (the gazetteer's points).
    for (const text of ['Alice lives in Versailles.', 'Bob lives in Melun.', 'Carol lives in Rouen.']) await remember(a, 'geo', text);
    await remember(b, 'geo', 'Dave lives in Versailles.');
  });
  afterAll(() => t.close());

  async function remember(tenant: Tenant, userId: string, text: string) {
    return t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ user_id: userId, text }).expect(200);
  }
  const query = (tenant: Tenant, body: object) =>
    t.http.post('/v1/gb/query').set('Authorization', `Bearer ${tenant.apiKey.key}`).send(body);
  /**
   * "Who is near Paris?" matches no entity by keywords (its one term, "paris", is in no visible
   * entity), and with no similarity match either the only anchors are the question's places.
   */
  async function withoutSimilarSeeds<T>(work: () => Promise<T>, options: { fallbackSeeds?: number } = {}): Promise<T> {
    const settings = t.app.get(GbQueryService).settings;
    const saved = { ...settings };
    settings.minSimilarity = 1.01;
    if (options.fallbackSeeds !== undefined) settings.fallbackSeeds = options.fallbackSeeds;
    try {
      return await work();
    } finally {
      Object.assign(settings, saved);
    }
  }
  const entityRows = (tenantId: string, name: string) =>
    queryRows<{ id: number; latitude: number | null; longitude: number | null; type: string }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT id, latitude, longitude, type FROM entities WHERE tenant_id = ${tenantId} AND normalized_name = ${name.toLowerCase()}`,
    ).then((rows) => rows.map((row) => ({ ...row, id: Number(row.id) }))); // node-postgres gives bigints as strings

  it('remember gives the place entities it resolves their coordinates', async () => {
    for (const name of ['Versailles', 'Melun', 'Rouen']) {
      const [row] = await entityRows(a.tenant.id, name);
      expect(row).toBeDefined();
      expect(Number(row.latitude)).toBeCloseTo(place(name).latitude, 6);
      expect(Number(row.longitude)).toBeCloseTo(place(name).longitude, 6);
    }
    // A person is not a place.
    const [alice] = await entityRows(a.tenant.id, 'Alice');
    expect(alice.latitude).toBeNull();
  });

  it('finds the geo entities within the default 50 km of the question place, with distance_km and anchor, and their facts', async () => {
    // No fallback seeds either: whatever the context holds, the nearby search brought.
    const response = await withoutSimilarSeeds(() => query(a, { user_id: 'geo', query: 'Who is near Paris?', geo_nearby: true }).expect(200), {
      fallbackSeeds: 0,
    });
    const { nearby } = response.body;
    expect(nearby.radius_km).toBe(50);
    expect(nearby.anchors).toEqual([
      { name: 'Paris', entity_id: expect.any(Number), latitude: place('Paris').latitude, longitude: place('Paris').longitude, source: 'question' },
    ]);
    const found = nearby.nearby as NearbyJson[];
    expect(found.map((n) => [n.name, n.distance_km, n.anchor])).toEqual([
      ['Versailles', km('Paris', 'Versailles'), 'Paris'],
      ['Melun', km('Paris', 'Melun'), 'Paris'],
    ]);
    expect(found[0].distance_km).toBeGreaterThan(15);
    expect(found[0].distance_km).toBeLessThan(18);
    // Rouen (111 km) is outside the radius: neither nearby nor its fact in the context.
    expect(found.map((n) => n.name)).not.toContain('Rouen');
    // The nearby entities and their live facts joined the context (the question alone matched nothing).
    expect(response.body.answer).toMatch(/Versailles|Melun|Alice|Bob/);
    const trajectory = await t.http
      .get(`/v1/gb/trajectories/${response.headers['x-request-id']}`)
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .expect(200);
    const step = (trajectory.body.steps as Array<{ name: string; counts: Record<string, number> }>).find((x) => x.name === 'nearby')!;
    expect(step.counts).toMatchObject({ anchors: 1, nearby: 2, unresolved: 0 });
    expect(step.counts.edges).toBe(2); // Alice lives in Versailles, Bob lives in Melun
    expect(step.counts.entities).toBeGreaterThanOrEqual(4);
    const calls = await t.app.get(InferencesRepository).listByRequest(a.tenant.id, response.headers['x-request-id']);
    expect(calls.map((c) => c.stage)).toEqual(expect.arrayContaining(['embed', 'detect_geo', 'query']));
  });

  it('takes the place entities the question matched as anchors too, each neighbour with its nearest other anchor', async () => {
    const response = await query(a, { user_id: 'geo', query: 'Who lives near Paris?', geo_nearby: true }).expect(200);
    const anchors = response.body.nearby.anchors as AnchorJson[];
    expect(anchors[0]).toMatchObject({ name: 'Paris', source: 'question' });
    // The offline embedder matches the question with the "lives in" places: anchors of their own.
    const matched = anchors.filter((x) => x.source === 'entity').map((x) => x.name);
    expect(matched.length).toBeGreaterThan(0);
    expect(['Versailles', 'Melun', 'Rouen']).toEqual(expect.arrayContaining(matched));
    const found = response.body.nearby.nearby as NearbyJson[];
    expect(found.map((n) => n.name)).toEqual(expect.arrayContaining(['Versailles', 'Melun']));
    for (const n of found) {
      const others = anchors.filter((x) => x.name !== n.name);
      const nearest = Math.min(...others.map((x) => km(x.name, n.name)));
      expect(n.distance_km).toBe(km(n.anchor, n.name));
      expect(n.distance_km).toBe(nearest);
      expect(n.distance_km).toBeLessThanOrEqual(50);
    }
    // Rouen is 95 km and more from every other anchor.
    expect(found.map((n) => n.name)).not.toContain('Rouen');
  });

  it('stores the question place as an entity with coordinates, which later questions find in the database', async () => {
    const [paris] = await entityRows(a.tenant.id, 'Paris');
    expect(Number(paris.latitude)).toBeCloseTo(place('Paris').latitude, 6);
    expect(paris.type).toBe('location');
    const again = await withoutSimilarSeeds(() => query(a, { user_id: 'geo', query: 'Who is near Paris?', geo_nearby: true }).expect(200));
    expect((again.body.nearby.anchors as AnchorJson[]).map((x) => x.entity_id)).toEqual([paris.id]);
    expect(await entityRows(a.tenant.id, 'Paris')).toHaveLength(1);
  });

  it('geo_radius_km overrides the default radius, both ways', async () => {
    const small = await withoutSimilarSeeds(() => query(a, { user_id: 'geo', query: 'Who is near Paris?', geo_radius_km: 20 }).expect(200));
    expect(small.body.nearby.radius_km).toBe(20);
    expect((small.body.nearby.nearby as NearbyJson[]).map((n) => n.name)).toEqual(['Versailles']);
    const large = await withoutSimilarSeeds(() =>
      query(a, { user_id: 'geo', query: 'Who is near Paris?', geo_radius_km: 120, geo_nearby: true }).expect(200),
    );
    expect((large.body.nearby.nearby as NearbyJson[]).map((n) => [n.name, n.distance_km])).toEqual([
      ['Versailles', km('Paris', 'Versailles')],
      ['Melun', km('Paris', 'Melun')],
      ['Rouen', km('Paris', 'Rouen')],
    ]);
  });

  it("never shows another tenant's places in nearby", async () => {
    const ofA = await query(a, { user_id: 'geo', query: 'Who lives near Paris?', geo_nearby: true }).expect(200);
    const ofB = await query(b, { user_id: 'geo', query: 'Who lives near Paris?', geo_nearby: true }).expect(200);
    const [versaillesOfA] = await entityRows(a.tenant.id, 'Versailles');
    const [versaillesOfB] = await entityRows(b.tenant.id, 'Versailles');
    expect((ofA.body.nearby.nearby as NearbyJson[]).map((n) => n.id)).toEqual(expect.arrayContaining([versaillesOfA.id]));
    expect((ofA.body.nearby.nearby as NearbyJson[]).map((n) => n.id)).not.toContain(versaillesOfB.id);
    expect((ofB.body.nearby.nearby as NearbyJson[]).map((n) => [n.id, n.name])).toEqual([[versaillesOfB.id, 'Versailles']]);
    expect(JSON.stringify(ofB.body)).not.toMatch(/Alice|Bob|Melun/);
    expect(JSON.stringify(ofA.body)).not.toContain('Dave');
    // Each tenant's question place is its own entity.
    expect((ofB.body.nearby.anchors as AnchorJson[])[0].entity_id).not.toBe((ofA.body.nearby.anchors as AnchorJson[])[0].entity_id);
  });

  it('omits nearby when the question names no place, and when it is not asked for', async () => {
    const noPlace = await withoutSimilarSeeds(() => query(a, { user_id: 'geo', query: 'What is the weather like today?', geo_nearby: true }).expect(200));
    expect(noPlace.body).not.toHaveProperty('nearby');
    const notAsked = await query(a, { user_id: 'geo', query: 'Who lives near Paris?' }).expect(200);
    expect(notAsked.body).not.toHaveProperty('nearby');
    const calls = await t.app.get(InferencesRepository).listByRequest(a.tenant.id, notAsked.headers['x-request-id']);
    expect(calls.map((c) => c.stage)).not.toContain('detect_geo');
  });

  it.each([
    [{ geo_radius_km: 0 }, 'geo_radius_km must be greater than 0 and at most 20015'],
    [{ geo_radius_km: -5, geo_nearby: true }, 'geo_radius_km must be greater than 0 and at most 20015'],
    [{ geo_radius_km: 20016 }, 'geo_radius_km must be greater than 0 and at most 20015'],
    [{ geo_radius_km: 10, geo_nearby: false }, 'geo_radius_km turns the nearby search on: it cannot be given with geo_nearby: false'],
  ])('still answers %j with 400 and the same body', async (geo, error) => {
    const response = await query(a, { user_id: 'geo', query: 'Who lives near Paris?', ...geo }).expect(400);
    expect(response.body).toEqual({ error });
  });
});

/** Geo is off by default: every geo 400 of the contract keeps its exact body. */
describe('POST /v1/gb/query with geo off (the default)', () => {
  let t: TestApp;
  let a: Tenant;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    a = await createTenantWithPeople(t.app);
    await t.http.post('/v1/gb/remember').set('Authorization', `Bearer ${a.apiKey.key}`).send({ user_id: 'geo', text: 'Alice lives in Versailles.' }).expect(200);
  });
  afterAll(() => t.close());

  it.each([
    [{ geo_nearby: true }, 'geo is not enabled on this server'],
    [{ geo_radius_km: 10 }, 'geo is not enabled on this server'],
    [{ geo_radius_km: 10, geo_nearby: true }, 'geo is not enabled on this server'],
    [{ geo_radius_km: 0 }, 'geo_radius_km must be greater than 0 and at most 20015'],
    [{ geo_radius_km: 20015.5 }, 'geo_radius_km must be greater than 0 and at most 20015'],
    [{ geo_radius_km: 10, geo_nearby: false }, 'geo_radius_km turns the nearby search on: it cannot be given with geo_nearby: false'],
  ])('answers %j with 400 and the exact body', async (geo, error) => {
    const response = await t.http
      .post('/v1/gb/query')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .send({ user_id: 'geo', query: 'Who lives near Paris?', ...geo })
      .expect(400);
    expect(response.body).toEqual({ error });
  });

  it('answers geo_nearby: false as if it were not given, and stores no coordinates', async () => {
    const response = await t.http
      .post('/v1/gb/query')
      .set('Authorization', `Bearer ${a.apiKey.key}`)
      .send({ user_id: 'geo', query: 'Who lives near Paris?', geo_nearby: false })
      .expect(200);
    expect(response.body).not.toHaveProperty('nearby');
    const rows = await queryRows<{ n: number }>(
      t.app.get<Database>(DATABASE).db,
      sql`SELECT count(*)::int AS n FROM entities WHERE tenant_id = ${a.tenant.id} AND latitude IS NOT NULL`,
    );
    expect(rows[0].n).toBe(0);
  });
});
