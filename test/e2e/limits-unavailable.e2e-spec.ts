import { DocumentsService, IngestWorker } from '@loci/ingest';
import { TenantsRepository } from '@loci/db';
import { createTenantWithPeople, createUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** With the limit store unreachable, spending requests fail closed; free ones keep working. */
describe('limits unavailable (Redis down)', () => {
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    // Port 1 on loopback refuses every connection: the limit store cannot answer.
    t = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:1', ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    people = await createTenantWithPeople(t.app);
    await t.app.get(DocumentsService).submit(people.tenant.id, { name: 'd', mimeType: 'text/plain', text: 'Alice works at Acme.' });
    await t.app.get(IngestWorker).drain();
  });
  afterAll(() => t.close());

  it('refuses a dashboard question with 503 limits_unavailable and Retry-After', async () => {
    const response = await t.http.post('/v1/query').set('Authorization', `Bearer ${people.member.token}`).send({ query: 'Where does Alice work?' });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ detail: { error: 'limits_unavailable' } });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  });

  it("stores an operator's limit change while the limit store is down", async () => {
    const operator = await createUser(t.app, null, 'operator');
    const response = await t.http
      .patch(`/v1/admin/tenants/${people.tenant.id}/limits`)
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ daily_query_quota: 3 })
      .expect(200);
    expect(response.body.limits.daily_query_quota).toBe(3);
    expect((await t.app.get(TenantsRepository).findById(people.tenant.id))!.dailyQueryQuota).toBe(3);
  });

  it('keeps answering API-key context questions, which spend nothing', async () => {
    await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${people.apiKey.key}`)
      .send({ query: 'Where does Alice work?', context_only: true })
      .expect(200);
  });
});
