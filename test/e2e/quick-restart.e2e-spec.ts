import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Issue 37.4: `npm start` builds first, and a build with nothing changed must not run tsc
 * (which parses every file even when incremental). The rule that decides it
 * (scripts/api-build-state.mjs), on a scratch tree: no build yet, a build, a source changed
 * after it, a source deleted.
 */
describe('the API build is skipped when nothing changed', () => {
  const state = resolve(__dirname, '../../scripts/api-build-state.mjs');
  let root: string;

  const run = (call: string): string => {
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', `import * as s from ${JSON.stringify(state)}; const r = s.${call}; console.log(JSON.stringify(r ?? null));`, root],
      { encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(result.stderr);
    return result.stdout.trim();
  };
  const current = () => run('apiBuildIsCurrent(process.argv[1])') === 'true';
  const built = () => {
    writeFileSync(join(root, 'dist', '.tsbuildinfo'), '{}');
    run('markApiBuilt(process.argv[1])');
  };
  const ageAll = (paths: string[]) => paths.forEach((p) => utimesSync(join(root, p), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000)));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'loci-build-state-'));
    for (const dir of ['apps/api/src', 'libs/db/src', 'dist']) mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(join(root, 'apps/api/src/main.ts'), 'export {};');
    writeFileSync(join(root, 'libs/db/src/index.ts'), 'export {};');
    writeFileSync(join(root, 'tsconfig.json'), '{}');
    ageAll(['apps/api/src/main.ts', 'libs/db/src/index.ts', 'tsconfig.json']);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when there is no build, and not again until a source changes', () => {
    expect(current()).toBe(false);
    built();
    expect(current()).toBe(true);
    writeFileSync(join(root, 'libs/db/src/index.ts'), 'export const changed = 1;');
    expect(current()).toBe(false);
    built();
    expect(current()).toBe(true);
  });

  it('counts a deleted or an added source as a change, and a changed tsconfig', () => {
    built();
    unlinkSync(join(root, 'libs/db/src/index.ts'));
    expect(current()).toBe(false);
    built();
    writeFileSync(join(root, 'libs/db/src/new.ts'), 'export {};');
    ageAll(['libs/db/src/new.ts']);
    expect(current()).toBe(false);
    built();
    writeFileSync(join(root, 'tsconfig.json'), '{"compilerOptions":{}}');
    expect(current()).toBe(false);
  });

  it('does not count what a bench or eval run writes (results, summaries, seeded questions) as a change', () => {
    built();
    for (const dir of ['bench/results', 'bench/data', 'bench/summaries', 'eval/results', 'eval/summaries']) {
      mkdirSync(join(root, dir), { recursive: true });
      writeFileSync(join(root, dir, 'run.json'), '{}');
    }
    expect(current()).toBe(true);
    mkdirSync(join(root, 'bench/scenarios'), { recursive: true });
    writeFileSync(join(root, 'bench/scenarios/new.ts'), 'export {};');
    expect(current()).toBe(false);
  });
});
