import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { TenantsRepository } from '@loci/db';
import { createTenant, createTenantWithPeople, createUser, recordStatements, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { createApp } from '../../apps/api/src/create-app';

const sharedStores = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

describe('operators tune limits', () => {
  let t: TestApp;
  let operator: TestUser;
  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(() => t.close());

  const asOperator = { Authorization: () => `Bearer ${operator.token}` };
  const patch = (tenantId: string, body: object, token = operator.token) =>
    t.http.patch(`/v1/admin/tenants/${tenantId}/limits`).set('Authorization', `Bearer ${token}`).send(body);

  it('gives a new tenant its tier defaults', async () => {
    const created = await t.http
      .post('/v1/admin/tenants')
      .set('Authorization', asOperator.Authorization())
      .send({ name: 'Free one', tier: 'free' })
      .expect(201);
    expect(created.body.limits).toEqual({
      daily_cost_cap_usd: 1,
      monthly_cost_cap_usd: 5,
      daily_query_quota: 100,
      max_concurrent_queries: 2,
      max_running_jobs: 2,
      requests_per_minute: 60,
      request_burst: 20,
      daily_document_quota: 1000,
      daily_ingest_mb: 50,
      max_stored_mb: 200,
    });
  });

  it('changes limits in USD, stored as integer micro-dollars; null is unlimited; absent stays', async () => {
    const tenant = await createTenant(t.app);
    const response = await patch(tenant.id, { daily_cost_cap_usd: 2.5, daily_query_quota: 10, max_concurrent_queries: null, tier: 'pro' }).expect(200);
    expect(response.body).toMatchObject({
      tier: 'pro',
      limits: { daily_cost_cap_usd: 2.5, monthly_cost_cap_usd: null, daily_query_quota: 10, max_concurrent_queries: null },
    });
    const row = await t.app.get(TenantsRepository).findById(tenant.id);
    expect(row).toMatchObject({ dailyCostCapMicros: 2_500_000, monthlyCostCapMicros: null, dailyQueryQuota: 10, maxConcurrentQueries: null });
    await patch(tenant.id, { daily_cost_cap_usd: 0.000001 }).expect(200);
    expect((await t.app.get(TenantsRepository).findById(tenant.id))!.dailyCostCapMicros).toBe(1);
    // The fair queue's cap on running ingestion jobs (issue 34.1).
    expect((await patch(tenant.id, { max_running_jobs: 3 }).expect(200)).body.limits.max_running_jobs).toBe(3);
    expect((await t.app.get(TenantsRepository).findById(tenant.id))!.maxRunningJobs).toBe(3);
    expect((await patch(tenant.id, { max_running_jobs: null }).expect(200)).body.limits.max_running_jobs).toBeNull();
    // Fair share's rate and ingestion quotas (issue 34.3, 34.4), in the same PATCH.
    const fairShare = { requests_per_minute: 120, request_burst: 30, daily_document_quota: 50, daily_ingest_mb: 5, max_stored_mb: 40 };
    expect((await patch(tenant.id, fairShare).expect(200)).body.limits).toMatchObject(fairShare);
    expect(await t.app.get(TenantsRepository).findById(tenant.id)).toMatchObject({
      requestsPerMinute: 120,
      requestBurst: 30,
      dailyDocumentQuota: 50,
      dailyIngestMb: 5,
      maxStoredMb: 40,
    });
  });

  it('validates limits and tenants, for operators only', async () => {
    const { tenant, admin } = await createTenantWithPeople(t.app);
    await patch(tenant.id, { daily_cost_cap_usd: -1 }).expect(400);
    await patch(tenant.id, { daily_query_quota: 1.5 }).expect(400);
    await patch(tenant.id, { max_concurrent_queries: 0 }).expect(400);
    await patch(tenant.id, { max_running_jobs: 0 }).expect(400);
    await patch(tenant.id, { requests_per_minute: 0 }).expect(400);
    await patch(tenant.id, { request_burst: 2.5 }).expect(400);
    await patch(tenant.id, { daily_ingest_mb: -1 }).expect(400);
    await patch(tenant.id, { colour: 'red' }).expect(400);
    await patch('not-a-uuid', { daily_query_quota: 1 }).expect(404);
    await patch('5b0f7c3e-0000-4000-8000-000000000000', { daily_query_quota: 1 }).expect(404);
    await patch(tenant.id, { daily_query_quota: 1 }, admin.token).expect(403);
  });

  it('sets the platform daily cap', async () => {
    const before = await t.http.get('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).expect(200);
    expect(before.body).toEqual({ daily_cost_cap_usd: null });
    await t.http.put('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).send({ daily_cost_cap_usd: 250 }).expect(200, { daily_cost_cap_usd: 250 });
    await t.http.get('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).expect(200, { daily_cost_cap_usd: 250 });
    await t.http.put('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).send({ daily_cost_cap_usd: null }).expect(200, { daily_cost_cap_usd: null });
    await t.http.put('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).send({ daily_cost_cap_usd: 'lots' }).expect(400);
  });

  // Two API instances share the stores only on PostgreSQL + Redis (PGlite is one process's).
  (sharedStores ? describe : describe.skip)('on every instance', () => {
    let second: INestApplication;
    beforeAll(async () => {
      second = await createApp(t.settings);
      await second.init();
    });
    afterAll(() => second?.close());

    it('applies a change made through one instance to the next request on another', async () => {
      const { tenant, member } = await createTenantWithPeople(t.app);
      const ask = () => request(second.getHttpServer()).post('/v1/query').set('Authorization', `Bearer ${member.token}`).send({ query: 'Where does Alice work?' });
      await ask().expect(200);
      // The other instance has the tenant's and the platform's limits cached now: the one tenant
      // read left is the call context's (it needs the tenant's own provider key, never cached).
      const recorder = recordStatements(second);
      try {
        await ask().expect(200);
        expect(recorder.tenantReads()).toHaveLength(1);
        expect(recorder.texts.filter((text) => /from "platform_limits"/i.test(text))).toEqual([]);
      } finally {
        recorder.stop();
      }
      await patch(tenant.id, { daily_cost_cap_usd: 0 }).expect(200);
      expect((await ask().expect(402)).body.detail.error).toBe('cost_cap_exceeded');
      await patch(tenant.id, { daily_cost_cap_usd: null, daily_query_quota: 0 }).expect(200);
      expect((await ask().expect(429)).body.detail.error).toBe('daily_query_quota_exceeded');
      await patch(tenant.id, { daily_query_quota: null }).expect(200);
      await t.http.put('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).send({ daily_cost_cap_usd: 0 }).expect(200);
      try {
        expect((await ask().expect(402)).body.detail.error).toBe('platform_budget_paused');
      } finally {
        await t.http.put('/v1/admin/platform/limits').set('Authorization', asOperator.Authorization()).send({ daily_cost_cap_usd: null }).expect(200);
      }
      await ask().expect(200);
    });

    it("applies a change to a gb caller's limits on the other instance, and a suspension and resume", async () => {
      const { tenant, apiKey } = await createTenantWithPeople(t.app);
      await t.http.post('/v1/gb/remember').set('X-API-Key', apiKey.key).send({ user_id: 'u1', text: 'Alice works at Acme.' }).expect(200);
      const gb = () =>
        request(second.getHttpServer()).post('/v1/gb/query').set('X-API-Key', apiKey.key).send({ user_id: 'u1', query: 'Where does Alice work?' });
      await gb().expect(200);
      await gb().expect(200);
      await patch(tenant.id, { daily_query_quota: 0 }).expect(200);
      expect((await gb().expect(429)).body.error).toBe('daily_query_quota_exceeded');
      await patch(tenant.id, { daily_query_quota: null }).expect(200);
      await gb().expect(200);
      await t.http.post(`/v1/admin/tenants/${tenant.id}/suspend`).set('Authorization', asOperator.Authorization()).expect(200);
      expect((await gb().expect(403)).body.error).toBe('tenant_suspended');
      await t.http.post(`/v1/admin/tenants/${tenant.id}/resume`).set('Authorization', asOperator.Authorization()).expect(200);
      await gb().expect(200);
    });
  });
});
