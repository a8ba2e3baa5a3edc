import { main } from '../../apps/cli/src/loci';
import { createTenant, createUser, startTestApp, TestApp, TestUser } from '@loci/testing';

/** `npm run loci`: the operators' CLI against a real server on loopback. */
describe('loci operator CLI', () => {
  let t: TestApp;
  let operator: TestUser;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    url = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    operator = await createUser(t.app, null, 'operator');
  });
  afterAll(() => t.close());

  async function run(args: string[], env: Record<string, string | undefined> = { LOCI_TOKEN: operator.token }) {
    let stdout = '';
    let stderr = '';
    const code = await main([...args, '--url', url], {
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
      env,
    });
    return { code, stdout, stderr };
  }

  it('sets and shows a tenant’s limits, as the API does', async () => {
    const tenant = await createTenant(t.app);
    const set = await run(['tenants:limits', tenant.id, '--daily-cap', '5', '--monthly-cap', 'none', '--quota', '200', '--concurrency', '3', '--tier', 'pro']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      tier: 'pro',
      limits: { daily_cost_cap_usd: 5, monthly_cost_cap_usd: null, daily_query_quota: 200, max_concurrent_queries: 3 },
    });
    const shown = await run(['tenants:limits', tenant.id]);
    expect(JSON.parse(shown.stdout).limits.daily_cost_cap_usd).toBe(5);
  });

  it('creates and lists tenants, sets the platform cap, and reports usage', async () => {
    const created = await run(['tenants:create', '--name', 'From the CLI', '--tier', 'free']);
    expect(created.code).toBe(0);
    const id = JSON.parse(created.stdout).id;
    expect(JSON.parse((await run(['tenants:list'])).stdout).items.map((i: { id: string }) => i.id)).toContain(id);
    expect(JSON.parse((await run(['platform:limits', '--daily-cap', '100'])).stdout)).toEqual({ daily_cost_cap_usd: 100 });
    expect(JSON.parse((await run(['platform:limits', '--daily-cap', 'none'])).stdout)).toEqual({ daily_cost_cap_usd: null });
    expect(JSON.parse((await run(['usage', '--tenant', id])).stdout).items).toEqual([]);
  });

  it('suspends, resumes, exports and deletes a tenant', async () => {
    const tenant = await createTenant(t.app);
    expect(JSON.parse((await run(['tenants:suspend', tenant.id])).stdout).suspended_at).toEqual(expect.any(String));
    expect(JSON.parse((await run(['tenants:resume', tenant.id])).stdout).suspended_at).toBeNull();
    const exported = await run(['tenants:export', tenant.id]);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'export', tenant_id: tenant.id });
    expect(lines[lines.length - 1].type).toBe('end');
    expect((await run(['tenants:delete', tenant.id])).code).toBe(2); // without --yes
    expect((await run(['tenants:show', tenant.id])).code).toBe(0);
    const deleted = await run(['tenants:delete', tenant.id, '--yes']);
    expect(deleted).toMatchObject({ code: 0, stdout: `tenant ${tenant.id} deleted\n` });
    expect((await run(['tenants:show', tenant.id])).code).toBe(1);
  });

  it('logs in with the operator’s email and password from the environment', async () => {
    const result = await run(['tenants:list'], { LOCI_OPERATOR_EMAIL: operator.email, LOCI_OPERATOR_PASSWORD: operator.password });
    expect(result.code).toBe(0);
  });

  it('answers usage errors with 2 and server refusals with 1', async () => {
    expect((await run(['tenants:limits', 'x', '--daily-cap', 'lots'])).code).toBe(2);
    expect((await run(['tenants:frobnicate'])).code).toBe(2);
    expect((await run(['tenants:list'], {})).code).toBe(2); // no credentials at all
    const refused = await run(['tenants:list'], { LOCI_TOKEN: 'not-a-token' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^401/);
    expect((await run(['tenants:limits', '5b0f7c3e-0000-4000-8000-000000000000', '--quota', '1'])).code).toBe(1);
  });
});
