import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { LimitStore, limitKeys, openLimitStore, utcDay } from '@loci/quota';
import { createFreshPostgresDatabase, freePort, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';

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
 * test then reads the child's counters and ledger. When the grace ends first, the request still
 * running loses its connection and the process frees its slot and settles its reservation at
 * the estimate itself, before closing the limit store, rather than leaving them to their leases.
 */

/** A built API process for one describe block, on the test's stores, with a bootstrap operator. */
function useApiProcess(extraEnv: Record<string, string>) {
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
        ...llmDoubleEnv(double),
        LOCI_LLM_MAX_RETRIES: '0',
        LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
        LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
        LOCI_QUERY_MIN_SIMILARITY: '-1',
        ...extraEnv,
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

  // JSON bodies of several routes.
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

  return {
    get double() {
      return double;
    },
    get child() {
      return child;
    },
    get exited() {
      return exited;
    },
    get output() {
      return output;
    },
    get port() {
      return port;
    },
    get baseUrl() {
      return baseUrl;
    },
    get databaseUrl() {
      return database?.url;
    },
    memberOfLimitedTenant,
  };
}

describe('graceful shutdown of the API process on SIGTERM', () => {
  const api = useApiProcess({ LOCI_SHUTDOWN_GRACE_MS: String(GRACE_MS) });

  it('refuses new connections, answers the question in flight with 200, releases its slot and reservation, and exits 0', async () => {
    const { tenantId, userId, token } = await api.memberOfLimitedTenant();
    const held = gate();
    api.double.anthropic.queue({ ...ANSWER, hold: held.promise });
    const inFlight = fetch(`${api.baseUrl}/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] }),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as { answer: string } }));
    try {
      await until(() => api.double.anthropic.requests.length === 1, 30_000, () => `the answer call to reach the double\n${api.output}`);

      api.child.kill('SIGTERM');
      await until(() => api.output.includes('SIGTERM: no new connections'), 10_000, () => `the process to start draining\n${api.output}`);
      expect(await connects(api.port)).toBe(false);
      expect(api.child.exitCode).toBeNull(); // still finishing the question
    } finally {
      held.open();
    }

    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(answered.body.answer).toContain('Alice works at Acme.');
    const { code, signal } = await api.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(api.output).not.toContain('closing their connections'); // finished, not cut at the grace's end

    if (onSharedStores) await expectNothingHeld(api.databaseUrl!, tenantId, userId, 0);
  });
});

describe('graceful shutdown of the API process when the grace ends first', () => {
  // Leases far longer than the test: only the shutdown itself can free the slot and reservation.
  const api = useApiProcess({ LOCI_SHUTDOWN_GRACE_MS: '1000', LOCI_SLOT_LEASE_MS: '600000', LOCI_RESERVATION_LEASE_MS: '600000' });

  it('closes the connection still waiting, frees its slot, settles its reservation at the estimate, and exits 0', async () => {
    const { tenantId, userId, token } = await api.memberOfLimitedTenant();
    const held = gate(); // opened only after the process is gone: the call never completes
    api.double.anthropic.queue({ ...ANSWER, hold: held.promise });
    try {
      const inFlight = fetch(`${api.baseUrl}/v1/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] }),
      }).then(
        (response) => `answered ${response.status}`,
        () => 'connection closed',
      );
      await until(() => api.double.anthropic.requests.length === 1, 30_000, () => `the answer call to reach the double\n${api.output}`);
      api.child.kill('SIGTERM');
      expect(await inFlight).toBe('connection closed');
      expect(await api.exited).toEqual({ code: 0, signal: null });
    } finally {
      held.open();
    }
    expect(api.output).toContain('requests still running after 1000 ms: closing their connections');
    if (onSharedStores) await expectNothingHeld(api.databaseUrl!, tenantId, userId, 1);
  });
});

/**
 * Read from the stores the dead process shared: the client's slot is free, and the day's counter
 * holds exactly what the ledger does (settled calls, and `pending` calls at their estimate): no
 * reservation is left live.
 */
async function expectNothingHeld(databaseUrl: string, tenantId: string, userId: string, pending: number) {
  const store: LimitStore = openLimitStore(process.env.REDIS_URL);
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const slots = limitKeys.clientSlots(tenantId, 'user', userId);
    const probe = await store.acquireSlot(slots, `probe-${randomUUID()}`, 1, 5_000);
    expect(probe.ok).toBe(true);
    const ledger = await pg.query<{ pending: string; spend: string }>(
      `select count(*) filter (where status = 'pending') as pending,
              coalesce(sum(case when status = 'pending' then estimated_cost_micros else cost_micros end), 0) as spend
         from inferences where tenant_id = $1`,
      [tenantId],
    );
    expect(Number(ledger.rows[0].pending)).toBe(pending);
    expect(Number(ledger.rows[0].spend)).toBeGreaterThan(0);
    const day = utcDay(await store.now());
    expect(await store.committed(limitKeys.tenantSpendDay(tenantId, day))).toBe(Number(ledger.rows[0].spend));
  } finally {
    await pg.end();
    await store.close();
  }
}

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

  /** Spawns the built worker on this suite's store; output collects stdout and stderr. */
  function spawnWorker() {
    const state = { output: '' };
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
    worker.stdout.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => (state.output += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      worker.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const kill = () => {
      if (worker.exitCode === null && worker.signalCode === null) worker.kill('SIGKILL');
    };
    return { worker, state, exited, kill };
  }

  it('stops claiming, closes its pools and exits 0 (not by the signal)', async () => {
    const { worker, state, exited, kill } = spawnWorker();
    try {
      await until(() => state.output.includes('started: kinds'), 90_000, () => `the worker to start consuming\n${state.output}`);
      worker.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(state.output).toContain('SIGTERM: no new jobs');
      expect(state.output).toMatch(/job runner \S+ stopped/);
    } finally {
      kill();
    }
  });

  // The job runner starts claiming inside the app's bootstrap (LOCI_RUN_WORKER is on by
  // default), before createApplicationContext returns: a signal then must already be handled,
  // or Node's default ends the process with claimed jobs half done. CI once caught that race.
  it('a SIGTERM while the app is still booting is handled the same way: exit 0 once it is up', async () => {
    const { worker, state, exited, kill } = spawnWorker();
    try {
      await until(() => state.output.includes('Starting Nest application'), 90_000, () => `the worker to boot\n${state.output}`);
      worker.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
      expect(state.output).toContain('SIGTERM: no new jobs');
    } finally {
      kill();
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

