import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import Redis from 'ioredis';

/**
 * Whether a redis-server binary is on the PATH (tests that need their own Redis skip without one).
 * A function, so that loading @loci/testing spawns nothing in the files that never ask.
 */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version']).status === 0;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A private, memory-only Redis a test may kill, stop and restart (the shared one is left alone).
 * Resolves once it answers PING.
 */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return child;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

/** Ends a private Redis for good (SIGKILL: it keeps nothing on disk; a stopped one dies too). */
export async function killRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGKILL');
  });
}
