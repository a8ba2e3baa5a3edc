import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { LimitStore, limitKeys, openLimitStore, utcDay } from '@loci/quota';
import { createFreshPostgresDatabase, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';

const ROOT = join(__dirname, '../..');
const BUILT_API = join(ROOT, 'dist/apps/api/src/main.js');
const GRACE_MS = 20_000;
const OPERATOR = { email: 'op@shutdown.test', password: 'operator-password-1' };
const ANSWER = { text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } };
// The child's slots and reservations outlive it only in Redis, and its ledger only in Postgres.
const onSharedStores = Boolean(process.env.REDIS_URL && process.env.DATABASE_URL);

/**
 * SIGTERM on the built API process (as `docker stop` or Kubernetes sends it): it refuses new
 * connections at once, lets the question in flight finish with its 200, releases its slot and
 * settles its reservation, and exits 0 well within LOCI_SHUTDOWN_GRACE_MS. On the embedded
 * default (PGlite and in-process limits in the child) and on PostgreSQL + Redis, where the
 * test then reads the child's counters and ledger.
 */
describe('graceful shutdown of the API process on SIGTERM', () => {
  let double: LlmDouble;
  let child: ChildProcess;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let output = '';
  let baseUrl: string;
  let port: number;
  let dataDir: string;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    // CI builds before testing (.ci/run); a fresh checkout may not have.
    if (!existsSync(BUILT_API)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
    double = await startLlmDouble();
    dataDir = mkdtempSync(join(tmpdir(), 'loci-shutdown-'));
    database = process.env.DATABASE_URL ? await createFreshPostgresDatabase(process.env.DATABASE_URL) : undefined;
    port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [BUILT_API], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: String(port),
        LOCI_DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        JWT_SECRET: randomBytes(32).toString('hex'),
        LOCI_BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
        LOCI_BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
        LOCI_SHUTDOWN_GRACE_MS: String(GRACE_MS),
        ...llmDoubleEnv(double),
        LOCI_LLM_MAX_RETRIES: '0',
        LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
        LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
        LOCI_QUERY_MIN_SIMILARITY: '-1',
      },
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`the API process exited (${child.exitCode}) during boot:\n${output}`);
        return fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false);
      },
      90_000,
      () => `the API process to be ready\n${output}`,
    );
  }, 700_000);

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await double?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several routes
  async function call(path: string, init: { token?: string; body?: unknown; method?: string } = {}): Promise<any> {
    const response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: { 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    const body = await response.json();
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  }

  /** A tenant with one question at a time, a processed document, and a member's token, all through HTTP. */
  async function memberOfLimitedTenant() {
    const operator = (await call('/v1/auth/login', { body: OPERATOR })).access_token;
    const tenant = await call('/v1/admin/tenants', { token: operator, body: { name: `T ${randomUUID()}`, tier: 'pro', billing: 'platform' } });
    await call(`/v1/admin/tenants/${tenant.id}/limits`, { token: operator, method: 'PATCH', body: { max_concurrent_queries: 1 } });
    const member = { email: `m-${randomUUID()}@shutdown.test`, password: 'member-password-1' };
    const user = await call(`/v1/admin/tenants/${tenant.id}/users`, { token: operator, body: { ...member, role: 'member' } });
    const token = (await call('/v1/auth/login', { body: member })).access_token;
    const document = await call('/v1/documents', { token, body: { name: 'd', text: 'Alice works at Acme.' } });
    await until(async () => (await call(`/v1/documents/${document.document_id}`, { token })).status === 'processed', 60_000, 'the document to be processed');
    return { tenantId: tenant.id as string, userId: user.id as string, token: token as string };
  }

  it('refuses new connections, answers the question in flight with 200, releases its slot and reservation, and exits 0', async () => {
    const { tenantId, userId, token } = await memberOfLimitedTenant();
    const held = gate();
    double.anthropic.queue({ ...ANSWER, hold: held.promise });
    const inFlight = fetch(`${baseUrl}/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { answer: string } }));
    try {
      await until(() => double.anthropic.requests.length === 1, 30_000, () => `the answer call to reach the double\n${output}`);

      child.kill('SIGTERM');
      await until(() => output.includes('SIGTERM: no new connections'), 10_000, () => `the process to start draining\n${output}`);
      expect(await connects(port)).toBe(false);
      expect(child.exitCode).toBeNull(); // still finishing the question
    } finally {
      held.open();
    }

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.answer).toContain('Alice works at Acme.');
    const { code, signal } = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output).not.toContain('closing their connections'); // finished, not cut at the grace's end

    if (onSharedStores) await expectNothingHeld(tenantId, userId);
  });

  /** Read from the stores the dead process shared: its slot is free, its reservation settled to the ledger. */
  async function expectNothingHeld(tenantId: string, userId: string) {
    const store: LimitStore = openLimitStore(process.env.REDIS_URL);
    const pg = new Client({ connectionString: database!.url });
    await pg.connect();
    try {
      const slots = limitKeys.clientSlots(tenantId, 'user', userId);
      const probe = await store.acquireSlot(slots, `probe-${randomUUID()}`, 1, 5_000);
      expect(probe.ok).toBe(true);
      const ledger = await pg.query<{ pending: string; settled: string }>(
        `select count(*) filter (where status = 'pending') as pending, coalesce(sum(cost_micros), 0) as settled from inferences where tenant_id = $1`,
        [tenantId],
      );
      expect(Number(ledger.rows[0].pending)).toBe(0);
      const answerCost = 1_500; // 1,000 in + 100 out tokens at the double's model price (spend-leaks)
      expect(Number(ledger.rows[0].settled)).toBeGreaterThanOrEqual(answerCost);
      const day = utcDay(await store.now());
      expect(await store.committed(limitKeys.tenantSpendDay(tenantId, day))).toBe(Number(ledger.rows[0].settled));
    } finally {
      await pg.end();
      await store.close();
    }
  }
});

describe('graceful shutdown of the worker process on SIGTERM', () => {
  const BUILT_WORKER = join(ROOT, 'dist/apps/worker/src/main.js');
  let dataDir: string;
  let database: { url: string; drop: () => Promise<void> } | undefined;

  beforeAll(async () => {
    if (!existsSync(BUILT_WORKER)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
    dataDir = mkdtempSync(join(tmpdir(), 'loci-worker-shutdown-'));
    database = process.env.DATABASE_URL ? await createFreshPostgresDatabase(process.env.DATABASE_URL) : undefined;
  }, 700_000);
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops claiming, closes its pools and exits 0 (not by the signal)', async () => {
    let output = '';
    const worker = spawn(process.execPath, [BUILT_WORKER], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        LOCI_DATA_DIR: dataDir,
        ...(database ? { DATABASE_URL: database.url } : {}),
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
        LOCI_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      },
    });
    worker.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      worker.once('exit', (code, signal) => resolve({ code, signal })),
    );
    try {
      await until(() => output.includes('started: kinds'), 90_000, () => `the worker to start consuming\n${output}`);
      worker.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(output).toContain('SIGTERM: no new jobs');
      expect(output).toMatch(/job runner \S+ stopped/);
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    }
  });
});

/** Whether a new TCP connection to the port is accepted. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean | Promise<boolean>, deadlineMs: number, what: string | (() => string)): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(50);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
