import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@loci/testing';
import { BUILT_API, BUILT_LOCI_CLI, ensureBuilt, startBuiltApi } from '../support/built-api';

/**
 * Issue 40.1: the embedded store is one process's. `loci init` beside a running embedded
 * server used to print "first operator created" and exit 0 while the server kept its own copy
 * of the database: the operator was gone after the server's restart. Now whoever opens the data
 * directory first holds it; every other process (a second server, the CLI, a worker, a
 * migration) refuses at once, naming the holder and what to do, and nothing is lost.
 */
const ROOT = join(__dirname, '../..');
const BUILT_WORKER = join(ROOT, 'dist/apps/worker/src/main.js');
const BUILT_MIGRATE = join(ROOT, 'dist/libs/db/src/migrate.cli.js');

interface Exit {
  code: number | null;
  output: string;
  ms: number;
}

/** Runs a built script to its exit (or kills it after `withinMs`), with its output. */
function runToExit(script: string, args: string[], env: Record<string, string>, withinMs = 60_000): Promise<Exit> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, timeout: withinMs }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}`, ms: Date.now() - started });
    });
    child.stdin?.end();
  });
}

describe('the embedded data directory belongs to one process (e2e, built processes on PGlite)', () => {
  let dataDir: string;
  const env = () => ({ LOCI_DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'warn' });

  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'loci-lock-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses init, a worker, a migration and a second server while a server runs, and loses nothing', async () => {
    const api = await startBuiltApi(env());
    let serverPid: number;
    try {
      serverPid = (JSON.parse(readFileSync(`${join(dataDir, 'pglite')}.owner.json`, 'utf8')) as { pid: number }).pid;
      const refusals = {
        init: await runToExit(BUILT_LOCI_CLI, ['init', '--email', 'beside@example.test'], env()),
        worker: await runToExit(BUILT_WORKER, [], env()),
        migrate: await runToExit(BUILT_MIGRATE, [], env()),
        server: await runToExit(BUILT_API, [], { ...env(), PORT: String(await freePort()), HOST: '127.0.0.1' }),
      };
      for (const [command, exit] of Object.entries(refusals)) {
        // At once: no waiting for a lock that a live process holds.
        expect({ command, code: exit.code, refusedAtOnce: exit.ms < 30_000 }).toEqual({ command, code: command === 'init' ? 1 : 75, refusedAtOnce: true });
        expect(exit.output).toContain(`is in use by process ${serverPid}`);
        expect(exit.output).toContain('stop that process first');
        // A sentence, not a stack trace.
        expect(exit.output).not.toMatch(/\n\s+at /);
      }
      expect(refusals.init.output).not.toContain('first operator created');
      // The server is untouched: it still answers, and still has no user.
      expect((await fetch(`${api.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      await api.stop();
    }
    expect(existsSync(`${join(dataDir, 'pglite')}.lock`)).toBe(false);

    // Stopped, the directory is free: init creates the operator, and the next start signs it in.
    const init = await runToExit(BUILT_LOCI_CLI, ['init', '--email', 'first@example.test'], env());
    expect(init.code).toBe(0);
    const password = /LOCI_OPERATOR_PASSWORD=(\S+)/.exec(init.output)?.[1];
    const again = await startBuiltApi(env());
    try {
      const login = await fetch(`${again.baseUrl}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'first@example.test', password }),
      });
      expect(login.status).toBe(200);
    } finally {
      await again.stop();
    }
  }, 300_000);

  it('a server killed without a chance to release the directory does not hold it for good', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BUILT_API], { cwd: ROOT, stdio: 'ignore', env: { PATH: process.env.PATH, ...env(), PORT: String(port), HOST: '127.0.0.1' } });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    for (let i = 0; i < 1200 && !(await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(`${join(dataDir, 'pglite')}.lock`)).toBe(true);

    // Its owner is dead: the next start waits out the stale lock instead of refusing.
    const next = await startBuiltApi(env());
    await next.stop();
    expect(next.output()).not.toContain('is in use by');
  }, 300_000);
});
