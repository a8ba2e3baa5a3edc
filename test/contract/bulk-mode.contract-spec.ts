import { createTenantWithPeople } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Who has bulk mode (docs/decisions/0029-bulk-mode.md, "Bulk mode"): PostgreSQL begins a graph's bulk load;
 * the embedded store (PGlite) refuses it with 409 and the reason, since building the graph's
 * indexes there would hold the thread that answers every request. What a load does is tested
 * on PostgreSQL in test/e2e/bulk-load.e2e-spec.ts.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

describe(`bulk mode on the ${onPostgres ? 'PostgreSQL' : 'embedded'} store`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
  });
  afterAll(() => t.close());

  it(onPostgres ? 'begins a bulk load' : 'refuses to begin a bulk load, saying why, and leaves the graph as it was', async () => {
    const cast = await createTenantWithPeople(t.app);
    const began = await t.http.post('/v1/bulk-load').set('X-API-Key', cast.apiKey.key);
    const state = (await t.http.get('/v1/bulk-load').set('X-API-Key', cast.apiKey.key).expect(200)).body;
    if (onPostgres) {
      expect(began.status).toBe(200);
      expect(state).toEqual({ state: 'loading', started_at: expect.any(String) });
      return;
    }
    expect(began.status).toBe(409);
    expect(JSON.stringify(began.body)).toContain('Bulk mode needs the PostgreSQL store');
    expect(state).toEqual({ state: 'none', started_at: null });
    await t.http.post('/v1/bulk-load/finish').set('X-API-Key', cast.apiKey.key).expect(409);
  });
});
