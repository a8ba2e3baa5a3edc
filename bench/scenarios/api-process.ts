import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The compiled API entry point, relative to dist/bench/scenarios. */
export const API_MAIN = resolve(__dirname, '../../apps/api/src/main.js');

export interface ApiProcess {
  url: string;
  pid: number;
  logPath: string;
  /** The settings the child got, as recorded in the results. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface ApiOptions {
  databaseUrl: string;
  redisUrl?: string;
  logLevel: string;
  poolMax: number;
  /** More settings for the child (e.g. a model stage pointed at the LLM double); they win over the above. */
  extraEnv?: Record<string, string>;
  /** Another build's dist/apps/api/src/main.js (default: this checkout's). */
  apiMain?: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The node flags of package.json's `start` script (`node <flags> dist/apps/api/src/main.js`). */
export function npmStartNodeFlags(): string[] {
  // The checkout's package.json: the nearest above this file, built (dist/bench/…) or not.
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  const start = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const flags = /^node (.*?) ?dist\/apps\/api\/src\/main\.js$/.exec(start);
  if (!flags) throw new Error(`package.json's start script is not "node [flags] dist/apps/api/src/main.js": ${start}`);
  return flags[1].split(/\s+/).filter(Boolean);
}

/**
 * Starts `node dist/apps/api/src/main.js` on a loopback port with the bench's store and limit
 * store, the local embedder forced (the seed's vectors are local-hash-v1; a platform OpenAI key
 * in the environment would otherwise change the query vectors), the in-process worker off and
 * its log in a file (a pipe the bench must drain would slow the API when the bench is busy).
 * Resolves once /healthz answers 200.
 */
export async function startApi(options: ApiOptions): Promise<ApiProcess> {
  const apiMain = options.apiMain ?? API_MAIN;
  if (!existsSync(apiMain)) throw new Error(`${apiMain} is missing: run npm run build (npm run bench does)`);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-bench-api-'));
  const logPath = join(dataDir, 'api.log');
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    // Production requires both secrets; the bench calls with an API key, so one-off values do.
    JWT_SECRET: process.env.JWT_SECRET || randomBytes(48).toString('base64url'),
    LOCI_ENCRYPTION_KEY: process.env.LOCI_ENCRYPTION_KEY || randomBytes(32).toString('base64'),
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: options.logLevel,
    DATABASE_URL: options.databaseUrl,
    LOCI_DB_POOL_MAX: String(options.poolMax),
    LOCI_DATA_DIR: dataDir,
    LOCI_RUN_WORKER: 'false',
    LOCI_EMBED_MODEL: 'local:local-hash-v1',
    ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
    ...options.extraEnv,
  };
  // Other LOCI_* settings pass through (that is how a tuning run changes one), provider keys do not.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^(OPENAI_|ANTHROPIC_|REDIS_URL$)/.test(entry[0])),
  );
  const log = openSync(logPath, 'a');
  // Node's flags as `npm start` passes them (the heap limit), so the API's memory is a user's;
  // then the bench's own (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where its CPU goes
  // under the bench's load; NODE_OPTIONS refuses some of them).
  const nodeArgs = [...npmStartNodeFlags(), ...(process.env.LOCI_BENCH_API_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)];
  const child = spawn(process.execPath, [...nodeArgs, apiMain], { env: { ...inherited, ...env }, stdio: ['ignore', log, log] });
  closeSync(log);
  let exited: number | null | undefined;
  const exit = new Promise<void>((done) => child.once('exit', (code) => ((exited = code), done())));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (exited !== undefined) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== undefined) throw new Error(`the API exited (code ${exited}) before answering /healthz; its log:\n${tail(logPath)}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API did not answer /healthz within 60 s; its log:\n${tail(logPath)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const recorded = Object.fromEntries(
    Object.entries({ ...inherited, ...env }).filter(([key]) => /^(LOCI_|LOG_LEVEL$|NODE_ENV$)/.test(key) && !/KEY|SECRET|PASSWORD/.test(key)),
  );
  return { url, pid: child.pid!, logPath, env: { ...recorded, REDIS_URL: options.redisUrl ? 'set' : 'unset (in-process limits)' }, stop };
}

function tail(path: string, lines = 30): string {
  try {
    return readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export interface RssSummary {
  samples: number;
  baseline_mb: number;
  peak_mb: number;
  mean_mb: number;
  last_mb: number;
}

/**
 * CPU time a process has used so far (user + system, all its threads) in ms, from
 * /proc/<pid>/stat; undefined off Linux. Its resolution is the kernel's clock tick (10 ms), fine
 * over a load cell of thousands of requests.
 */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS_PER_S) : undefined;
  } catch {
    return undefined;
  }
}

// sysconf(_SC_CLK_TCK): 100 on every Linux this runs on (USER_HZ is fixed by the kernel ABI).
const CLOCK_TICKS_PER_S = 100;

/** Resident set size of a process in bytes: /proc on Linux, `ps` elsewhere. */
export function rssBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (match) return Number(match[1]) * 1024;
  } catch {
    // not Linux, or gone
  }
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) * 1024 || undefined;
  } catch {
    return undefined;
  }
}

/** Samples a process's RSS on a timer; the first sample is the baseline (before the load). */
export class RssSampler {
  private readonly values: number[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): RssSummary {
    clearInterval(this.timer);
    this.sample();
    const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
    const sum = this.values.reduce((a, b) => a + b, 0);
    return {
      samples: this.values.length,
      baseline_mb: mb(this.values[0] ?? Number.NaN),
      peak_mb: mb(Math.max(...this.values)),
      mean_mb: mb(sum / this.values.length),
      last_mb: mb(this.values[this.values.length - 1] ?? Number.NaN),
    };
  }

  private sample(): void {
    const value = rssBytes(this.pid);
    if (value !== undefined) this.values.push(value);
  }
}
