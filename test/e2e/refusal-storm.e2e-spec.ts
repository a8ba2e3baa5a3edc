import { LimitRefusalsRepository } from '@loci/db';
import { createTenantWithPeople, createUser, TestUser } from '@loci/testing';
import { RefusalCounter } from '../../apps/api/src/limits/refusal-counter';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A refusal costs far less than the work it refuses (fair share): a client that ignores
 * Retry-After draws refusals as fast as it can send. A rate refusal is held until its client could
 * retry (at most a second), so such a client gets one a second per connection; and refusals,
 * each once a committed upsert of the same counter row, are added up in memory and written once
 * a second in one statement for every tenant. The counts stay exact in usage, and a tenant
 * deleted before its counts are written cannot fail another's. On the stores the environment selects.
 */
describe('a storm of refusals', () => {
  let t: TestApp;
  let operator: TestUser;
  let writes: jest.SpyInstance;

  beforeAll(async () => {
    t = await startTestApp();
    operator = await createUser(t.app, null, 'operator');
    writes = jest.spyOn(t.app.get(LimitRefusalsRepository), 'add');
  });
  afterAll(() => t.close());

  const setRate = (tenantId: string) =>
    t.http
      .patch(`/v1/admin/tenants/${tenantId}/limits`)
      .set('Authorization', `Bearer ${operator.token}`)
      .send({ requests_per_minute: 1, request_burst: 1 })
      .expect(200);
  const ask = (key: string) => t.http.post('/v1/query').set('X-API-Key', key).send({ query: 'Where does Alice work?', context_only: true });
  const refusalsIn = async (admin: TestUser) => {
    const usage = await t.http.get('/v1/usage').set('Authorization', `Bearer ${admin.token}`).expect(200);
    return (usage.body.items as Array<{ refusals: Record<string, number> }>).reduce((sum, day) => sum + (day.refusals.rate_limit_exceeded ?? 0), 0);
  };

  it('writes 40 refusals of two tenants in one or two statements, and usage counts each exactly', async () => {
    const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await Promise.all([setRate(a.tenant.id), setRate(b.tenant.id)]);
    await ask(a.apiKey.key).expect(200);
    await ask(b.apiKey.key).expect(200);
    writes.mockClear();

    const statuses = await Promise.all([
      ...Array.from({ length: 30 }, () => ask(a.apiKey.key).then((r) => r.status)),
      ...Array.from({ length: 10 }, () => ask(b.apiKey.key).then((r) => r.status)),
    ]);
    expect(statuses.every((status) => status === 429)).toBe(true);
    // Before any usage read: nothing, or the first second's batch, has been written.
    expect(writes.mock.calls.length).toBeLessThanOrEqual(1);

    expect(await refusalsIn(a.admin)).toBe(30);
    expect(await refusalsIn(b.admin)).toBe(10);
    expect(writes.mock.calls.length).toBeLessThanOrEqual(2);
    expect(writes.mock.calls.flatMap(([rows]) => rows).reduce((sum, row) => sum + row.count, 0)).toBe(40);
  });

  it('answers a rate refusal when its client could retry, another tenant answered meanwhile', async () => {
    const [a, b] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await setRate(a.tenant.id);
    await ask(a.apiKey.key).expect(200);
    const order: string[] = [];
    const refused = ask(a.apiKey.key).then((response) => {
      order.push('a refused');
      return response;
    });
    const answered = ask(b.apiKey.key).then((response) => {
      order.push('b answered');
      return response;
    });
    const [refusal, answer] = await Promise.all([refused, answered]);
    expect(answer.status).toBe(200);
    expect(refusal.status).toBe(429);
    // Held (LOCI_RATE_REFUSAL_HOLD_MS, 1 s by default): B's question, asked after, is answered first,
    // and the refusal's Retry-After is what is left of the minute after the hold, not the whole.
    expect(order).toEqual(['b answered', 'a refused']);
    expect(refusal.body.detail).toMatchObject({ error: 'rate_limit_exceeded', retry_after: 59 });
    expect(refusal.headers['retry-after']).toBe('59');
  });

  it("skips a tenant deleted before its refusals are written, and writes the others'", async () => {
    const [gone, stays] = await Promise.all([createTenantWithPeople(t.app), createTenantWithPeople(t.app)]);
    await Promise.all([setRate(gone.tenant.id), setRate(stays.tenant.id)]);
    await ask(gone.apiKey.key).expect(200);
    await ask(stays.apiKey.key).expect(200);
    await ask(gone.apiKey.key).expect(429);
    await ask(stays.apiKey.key).expect(429);
    await t.http.delete(`/v1/admin/tenants/${gone.tenant.id}`).set('Authorization', `Bearer ${operator.token}`).expect(204);

    await t.app.get(RefusalCounter).flush();
    expect(await refusalsIn(stays.admin)).toBe(1);
  });
});
