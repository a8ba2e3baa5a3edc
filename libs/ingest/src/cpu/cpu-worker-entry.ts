import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';

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
 * The parent's execArgv a thread accepts. Its V8 heap flags go: `npm start` runs the API with
 * --max-old-space-size (the heap of the thread that answers requests), and a thread inheriting
 * it fails to start, which failed every document whose CPU steps run on the pool. Each thread
 * gets its heap from its resourceLimits (see letThreadsSizeTheirHeaps). Any other flag a Worker
 * refuses goes too (V8 flags such as --trace-gc, per-process ones such as --title): an operator
 * who starts the API with one for a diagnosis would otherwise fail every upload and question
 * with ERR_WORKER_INVALID_EXEC_ARGV. `accepts` is asked only when something is left to check.
 */
export function threadExecArgv(parentArgv: string[], accepts: (flags: string[]) => boolean = workerAccepts): string[] {
  const groups = flagGroups(parentArgv).filter((group) => !HEAP_FLAG.test(group[0]));
  const kept = groups.flat();
  if (kept.length === 0 || accepts(kept)) return kept;
  return groups.filter((group) => accepts(group)).flat();
}

/** Each flag with the values that follow it (`--require x`, `--title x`): kept or dropped together. */
function flagGroups(argv: string[]): string[][] {
  const groups: string[][] = [];
  for (const token of argv) {
    if (token.startsWith('-') || groups.length === 0) groups.push([token]);
    else groups[groups.length - 1].push(token);
  }
  return groups;
}

/**
 * Whether a Worker starts with these flags: Node checks them in the constructor and throws
 * ERR_WORKER_INVALID_EXEC_ARGV there. A thread that does start runs nothing and is ended at once.
 */
function workerAccepts(flags: string[]): boolean {
  try {
    void new Worker('', { eval: true, execArgv: flags }).terminate();
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_WORKER_INVALID_EXEC_ARGV') return false;
    throw error;
  }
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
