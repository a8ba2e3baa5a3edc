import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTenant, createUser, TestUser } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { ensureBuilt } from '../support/built-api';
import { main } from '../../apps/cli/src/loci';

const ROOT = join(__dirname, '../..');

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
    const set = await run(['tenants:limits', tenant.id, '--daily-cap', '5', '--monthly-cap', 'none', '--quota', '200', '--concurrency', '3', '--running-jobs', '2', '--tier', 'pro']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      tier: 'pro',
      limits: { daily_cost_cap_usd: 5, monthly_cost_cap_usd: null, daily_query_quota: 200, max_concurrent_queries: 3, max_running_jobs: 2 },
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

  it('onboards a tenant without curl: users and API keys', async () => {
    const tenant = await createTenant(t.app);
    const created = await run(['users:create', tenant.id, '--email', `ann-${tenant.id}@example.test`, '--role', 'admin']);
    expect(created.code).toBe(0);
    const ann = JSON.parse(created.stdout);
    expect(ann).toMatchObject({ email: `ann-${tenant.id}@example.test`, role: 'admin', tenant_id: tenant.id, password: expect.stringMatching(/^[\w-]{24}$/) });
    // The generated password signs in.
    const login = await fetch(`${url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: ann.email, password: ann.password }) });
    expect(login.status).toBe(200);

    const bob = JSON.parse((await run(['users:create', tenant.id, '--email', `bob-${tenant.id}@example.test`, '--password', 'bob-password-1'])).stdout);
    expect(bob).toMatchObject({ role: 'member' });
    expect(bob.password).toBeUndefined(); // given, so not echoed
    const listed = JSON.parse((await run(['users:list', tenant.id])).stdout);
    expect(listed.items.map((u: { email: string }) => u.email).sort()).toEqual([ann.email, bob.email].sort());
    expect((await run(['users:update', tenant.id, bob.id, '--disable'])).stdout).toContain('"disabled_at": "');
    expect((await run(['users:delete', tenant.id, bob.id])).code).toBe(2); // without --yes
    expect((await run(['users:delete', tenant.id, bob.id, '--yes'])).code).toBe(0);

    const key = JSON.parse((await run(['api-keys:create', tenant.id, '--name', 'backend', '--scopes', 'read'])).stdout);
    expect(key).toMatchObject({ name: 'backend', scopes: ['read'], key: expect.stringMatching(/^loci_/) });
    const me = await fetch(`${url}/v1/me`, { headers: { 'x-api-key': key.key } });
    expect(await me.json()).toMatchObject({ kind: 'api_key', tenant_id: tenant.id });
    expect(await run(['api-keys:revoke', tenant.id, key.id])).toMatchObject({ code: 0, stdout: `key ${key.id} revoked\n` });
    expect((await fetch(`${url}/v1/me`, { headers: { 'x-api-key': key.key } })).status).toBe(401);

    expect((await run(['users:create', tenant.id])).stderr).toMatch(/needs --email/);
    expect((await run(['users:create', tenant.id, '--email', 'x@example.test', '--role', 'operator'])).stderr).toMatch(/--role must be admin or member/);
    expect((await run(['api-keys:create', tenant.id, '--name', 'k', '--scopes', 'read,admin'])).code).toBe(2);
    expect((await run(['users:update', tenant.id])).stderr).toMatch(/needs a tenant id and a user id/);
  });

  it('names the URL it could not reach, and why', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    let stderr = '';
    const code = await main(['tenants:list'], { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, env: { LOCI_URL: `http://127.0.0.1:${port}`, LOCI_TOKEN: operator.token } });
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`could not reach the Loci server at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
    // Logging in reaches the server first: the same message.
    stderr = '';
    await main(['tenants:list'], { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, env: { LOCI_URL: `http://127.0.0.1:${port}`, LOCI_OPERATOR_EMAIL: 'a@b.test', LOCI_OPERATOR_PASSWORD: 'whatever-long' } });
    expect(stderr).toMatch(/could not reach the Loci server at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });

  it('says in --help how to sign in', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const variable of ['LOCI_URL', 'LOCI_TOKEN', 'LOCI_OPERATOR_EMAIL', 'LOCI_OPERATOR_PASSWORD', 'LOCI_BOOTSTRAP_OPERATOR_EMAIL']) expect(help.stdout).toContain(variable);
    expect(help.stdout).toContain('loci init');
  });

  it('runs from its bin entry on the built code, without building', async () => {
    ensureBuilt();
    const bins = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin as Record<string, string>;
    expect(Object.keys(bins).sort()).toEqual(['ingest', 'loci']);
    for (const [name, path] of Object.entries(bins)) {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, path), '--help'], { cwd: ROOT });
      expect(stdout).toMatch(new RegExp(`^Usage: ${name} `));
      expect(stderr).not.toContain('npm run build');
    }
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
