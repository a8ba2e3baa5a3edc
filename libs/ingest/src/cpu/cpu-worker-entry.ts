import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
export function cpuWorkerEntry(dir: string = __dirname): WorkerEntry {
  const compiled = join(dir, 'cpu-worker.js');
  if (existsSync(compiled)) return { filename: compiled, execArgv: process.execArgv, env: process.env };
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
    execArgv: [...process.execArgv, '--require', hook],
    env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
  };
}
