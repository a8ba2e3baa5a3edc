import { createTenantWithPeople, createUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** GET /v1/tenant: a tenant admin reads their own tenant's limits and spend (the console's usage screen). */
describe('own tenant (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
  });
  afterAll(() => t.close());

  it("shows the admin's own tenant with its limits and spend, nobody else's, to admins only", async () => {
    const [a, b, operator] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app), createUser(t.app, null, 'operator')]);
    await t.http.patch(`/v1/admin/tenants/${a.tenant.id}/limits`).set('Authorization', `Bearer ${operator.token}`).send({ daily_cost_cap_usd: 7 }).expect(200);
    const { body } = await t.http.get('/v1/tenant').set('Authorization', `Bearer ${a.admin.token}`).expect(200);
    expect(body).toMatchObject({ id: a.tenant.id, limits: { daily_cost_cap_usd: 7 }, spend: { today_usd: 0, this_month_usd: 0 } });
    const other = await t.http.get('/v1/tenant').set('Authorization', `Bearer ${b.admin.token}`).expect(200);
    expect(other.body.id).toBe(b.tenant.id);
    expect(other.body.limits.daily_cost_cap_usd).not.toBe(7);
    await t.http.get('/v1/tenant').set('Authorization', `Bearer ${a.member.token}`).expect(403);
    await t.http.get('/v1/tenant').set('X-API-Key', a.apiKey.key).expect(403);
    await t.http.get('/v1/tenant').set('Authorization', `Bearer ${operator.token}`).expect(403);
  });
});
