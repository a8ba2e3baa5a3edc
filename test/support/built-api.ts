import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@loci/testing';

const ROOT = join(__dirname, '../..');
export const BUILT_API = join(ROOT, 'dist/apps/api/src/main.js');
export const BUILT_LOCI_CLI = join(ROOT, 'dist/apps/cli/src/loci.js');

/** Builds once when dist/ is missing (CI builds before testing; a fresh checkout may not have). */
export function ensureBuilt(): void {
  if (!existsSync(BUILT_API) || !existsSync(BUILT_LOCI_CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
}

export interface BuiltApi {
  baseUrl: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/** How much of a dead process's output is printed: its last log lines and a fatal error's trace. */
const TAIL_CHARS = 8_000;

/**
 * The built API as `npm start` runs it, with exactly `env` (plus PATH, a port and 127.0.0.1),
 * ready once /readyz answers 200. `nodeArgs` go to node before the script (`--require` a probe).
 */
export async function startBuiltApi(env: Record<string, string>, readyWithinMs = 120_000, nodeArgs: string[] = []): Promise<BuiltApi> {
  ensureBuilt();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, BUILT_API], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: String(port), ...env },
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let ready = false;
  let stopping = false;
  // 'close' comes after the process's stdio has ended, so the tail holds its last words (a V8
  // fatal error's trace). The output lives only here: a process that dies under a test, or ends
  // badly when stopped, has it printed, or CI shows no more than "fetch failed" and a dead port.
  // (One that dies during boot fails startBuiltApi with its whole output.)
  const exited = new Promise<void>((resolve) =>
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      const clean = !ready || (stopping && (code === 0 || signal === 'SIGTERM'));
      if (!clean) {
        const how = signal ? `signal ${signal}` : `code ${code}`;
        const when = stopping ? 'when stopped' : 'unexpectedly';
        process.stderr.write(
          `\n[built-api] the API process ${child.pid} on ${baseUrl} exited ${when} (${how}); the last ${TAIL_CHARS} characters of its output:\n` +
            `${output.slice(-TAIL_CHARS)}\n[built-api] end of the output of ${child.pid}\n`,
        );
      }
      resolve();
    }),
  );
  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await exited;
      throw new Error(`the API process exited (${child.exitCode ?? child.signalCode}) during boot:\n${output}`);
    }
    if (await fetch(`${baseUrl}/readyz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the API process was not ready within ${readyWithinMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  ready = true;
  return { baseUrl, output: () => output, stop };
}
