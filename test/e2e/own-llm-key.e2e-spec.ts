import { TenantsRepository } from '@loci/db';
import { createTenant, createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

describe('PUT /v1/admin/tenants/:id/llm-key', () => {
  let t: TestApp;
  let operator: TestUser;
  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(() => t.close());

  const put = (tenantId: string, body: object, token = operator.token) =>
    t.http.put(`/v1/admin/tenants/${tenantId}/llm-key`).set('Authorization', `Bearer ${token}`).send(body);

  it('stores the key sealed and never returns it', async () => {
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    await put(tenant.id, { provider: 'anthropic', api_key: 'sk-ant-tenant-secret' }).expect(204);

    const row = await t.app.get(TenantsRepository).findById(tenant.id);
    expect(row?.ownLlmProvider).toBe('anthropic');
    expect(row?.ownLlmKeyEncrypted).toMatch(/^v1\./);
    expect(row?.ownLlmKeyEncrypted).not.toContain('sk-ant-tenant-secret');

    const shown = await t.http.get(`/v1/admin/tenants/${tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(200);
    expect(shown.body.own_llm_provider).toBe('anthropic');
    expect(JSON.stringify(shown.body)).not.toContain('sk-ant-tenant-secret');
  });

  it('validates the body and the tenant', async () => {
    const tenant = await createTenant(t.app);
    await put(tenant.id, { provider: 'cohere', api_key: 'x' }).expect(400);
    await put(tenant.id, { provider: 'openai', api_key: '' }).expect(400);
    await put('5b0f7c3e-0000-4000-8000-000000000000', { provider: 'openai', api_key: 'k' }).expect(404);
    await put('not-a-uuid', { provider: 'openai', api_key: 'k' }).expect(404);
  });

  it('is for operators only', async () => {
    const { tenant, admin } = await createTenantWithPeople(t.app);
    await put(tenant.id, { provider: 'openai', api_key: 'k' }, admin.token).expect(403);
  });
});
