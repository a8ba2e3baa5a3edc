import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BUILT_API, BUILT_LOCI_CLI, startBuiltApi } from '../support/built-api';

/**
 * A plain `npm start` on an empty store: the log's boot lines carry the times they happened,
 * "listening" follows them, and the last line tells the newcomer how to create the first
 * operator. `loci init` then creates one and prints its credentials once, which sign in on the
 * next start, and that start has nothing more to say about it.
 */

const run = promisify(execFile);
type LogLine = { level: number; time: number; msg: string; context?: string };

const logLines = (output: string): LogLine[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

describe('first run (e2e, built server on the embedded default)', () => {
  let dataDir: string;
  const env = () => ({ LOCI_DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info' });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'loci-first-run-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('logs the boot in real time, then "listening", then how to create the first operator', async () => {
    const api = await startBuiltApi(env());
    await api.stop();
    const lines = logLines(api.output());
    const messages = lines.map((line) => line.msg);
    const starting = messages.indexOf('Starting Nest application...');
    const started = messages.indexOf('Nest application successfully started');
    const listening = messages.findIndex((msg) => msg.startsWith('listening on http://127.0.0.1:'));
    const consoleAt = messages.findIndex((msg) => /^console at http:\/\/127\.0\.0\.1:\d+\/console$/.test(msg));
    const hint = messages.findIndex((msg) => msg.startsWith('no user exists yet'));
    expect([starting, started, listening, consoleAt, hint].every((index) => index >= 0)).toBe(true);
    expect(starting).toBeLessThan(started);
    expect(started).toBeLessThan(listening);
    // What a newcomer needs next is last: where the console is, then how to sign in.
    expect([consoleAt, hint]).toEqual([listening + 1, listening + 2]);
    // Opening and migrating the store takes time; buffered lines would all share the flush's.
    expect(lines[started].time).toBeGreaterThan(lines[starting].time);
    expect(lines.slice(0, hint + 1).map((line) => line.time)).toEqual([...lines.slice(0, hint + 1).map((line) => line.time)].sort((a, b) => a - b));

    expect(lines[hint].level).toBe(40);
    expect(messages[hint]).toContain('LOCI_BOOTSTRAP_OPERATOR_EMAIL=<email> LOCI_BOOTSTRAP_OPERATOR_PASSWORD=<at least 12 characters>');
    expect(messages[hint]).toContain('npm run loci -- init');
  }, 300_000);

  it('refuses a busy port, naming PORT, before opening the store', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const elsewhere = mkdtempSync(join(tmpdir(), 'loci-busy-port-'));
    try {
      const refused = await run(process.execPath, [BUILT_API], { env: { PATH: process.env.PATH, LOCI_DATA_DIR: elsewhere, HOST: '127.0.0.1', PORT: String(port) } }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused.code).toBe(75);
      expect(refused.stderr).toContain(`Port ${port} on 127.0.0.1 is in use`);
      expect(refused.stderr).toContain(`PORT=${port + 1} npm start`);
      expect(existsSync(join(elsewhere, 'pglite'))).toBe(false);
    } finally {
      busy.close();
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('leads the site root to the console', async () => {
    const api = await startBuiltApi(env());
    try {
      const root = await fetch(`${api.baseUrl}/`, { redirect: 'manual' });
      expect(root.status).toBe(302);
      expect(root.headers.get('location')).toBe('/console/');
    } finally {
      await api.stop();
    }
  }, 300_000);

  it('`loci init` creates the first operator once and prints credentials that sign in', async () => {
    const { stdout } = await run(process.execPath, [BUILT_LOCI_CLI, 'init', '--email', 'first@example.test'], { env: { PATH: process.env.PATH, ...env() } });
    const email = /LOCI_OPERATOR_EMAIL=(\S+)/.exec(stdout)?.[1];
    const password = /LOCI_OPERATOR_PASSWORD=(\S+)/.exec(stdout)?.[1];
    expect(email).toBe('first@example.test');
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);

    const again = await run(process.execPath, [BUILT_LOCI_CLI, 'init'], { env: { PATH: process.env.PATH, ...env() } }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('an operator exists already');

    const api = await startBuiltApi(env());
    try {
      const login = await fetch(`${api.baseUrl}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(login.status).toBe(200);
      const me = await fetch(`${api.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` } });
      expect(await me.json()).toMatchObject({ role: 'operator', tenant_id: null });
    } finally {
      await api.stop();
    }
    expect(api.output()).toContain('listening on');
    expect(api.output()).not.toContain('no user exists yet');
  }, 300_000);
});
