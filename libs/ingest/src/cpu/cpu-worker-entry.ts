import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';

export interface WorkerEntry {
  filename: string;
  execArgv: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * The file CpuPool's threads load. Built (`npm run build`, what `npm start` and the worker run),
 * it is the compiled cpu-worker.js beside this file. From TypeScript sources (jest, which runs
 * ts-jest in the main thread only) a thread cannot load .ts by itself, so it gets tsx's require
 * hook, which compiles the sources it loads and resolves tsconfig's @loci/* paths. Loading the
 * sources rather than dist/ means a test never runs stale compiled code.
 */
export function cpuWorkerEntry(dir: string = __dirname, parentArgv: string[] = process.execArgv): WorkerEntry {
  const inherited = threadExecArgv(parentArgv);
  const compiled = join(dir, 'cpu-worker.js');
  if (existsSync(compiled)) return { filename: compiled, execArgv: inherited, env: process.env };
  const source = join(dir, 'cpu-worker.ts');
  if (!existsSync(source)) {
    throw new Error(`CPU worker entry missing: neither ${compiled} nor ${source} exists; run \`npm run build\``);
  }
  let hook: string;
  try {
    hook = require.resolve('tsx/cjs');
  } catch {
    throw new Error(
      `CPU worker threads cannot load ${source} without a TypeScript loader: install the dev dependencies (tsx), or run the built code (\`npm run build\`)`,
    );
  }
  const tsconfig = resolve(dir, '../../../../tsconfig.json');
  return {
    filename: source,
    execArgv: [...inherited, '--require', hook],
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
  };
}

/** V8 heap flags: per isolate, so a Worker refuses them in execArgv (ERR_WORKER_INVALID_EXEC_ARGV). */
const HEAP_FLAG = /^--(max[-_]old[-_]space[-_]size|max[-_]semi[-_]space[-_]size|max[-_]young[-_]generation[-_]size)(=|$)/;

/**
 * The parent's execArgv without its V8 heap flags: `npm start` runs the API with
 * --max-old-space-size (the heap of the thread that answers requests), and a thread inheriting
 * it fails to start, which failed every document whose CPU steps run on the pool. Each thread
 * gets its heap from its resourceLimits (see letThreadsSizeTheirHeaps).
 */
export function threadExecArgv(parentArgv: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < parentArgv.length; i++) {
    const match = HEAP_FLAG.exec(parentArgv[i]);
    if (!match) kept.push(parentArgv[i]);
    else if (match[2] === '') i++; // `--flag value`: its value goes too
  }
  return kept;
}

/**
 * V8's --max-old-space-size is one flag for the whole process, and it wins over a Worker's
 * resourceLimits: under `npm start` every CPU thread got the request thread's 256 MB whatever it
 * was given (and a 2 MB text of short lines ran its thread out of memory on every attempt). V8
 * reads the flag when an isolate is created, so clearing it once the main thread's isolate
 * exists leaves that heap as it was sized and lets each thread created after be sized by its
 * resourceLimits (LOCI_CPU_THREAD_HEAP_MB). Threads of other libraries (a log transport) then get
 * V8's default heap instead of the flag's.
 */
export function letThreadsSizeTheirHeaps(): void {
  setFlagsFromString('--max-old-space-size=0');
}
