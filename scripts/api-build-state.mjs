// Whether dist holds a build of the API's current sources (see build-api-if-changed.mjs): no
// source newer than dist/.tsbuildinfo, and as many sources as at that build (so a deleted file
// counts as a change). A module of its own so the rule is tested on a scratch tree.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCE_ROOTS = ['apps', 'libs', 'bench', 'eval', join('packages', 'client', 'src')];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
/** What the bench and the eval write beside their sources (JSON too): a run is not a change to build. */
const OUTPUTS = [
  join('bench', 'results'),
  join('bench', 'data'),
  join('bench', 'summaries'),
  join('eval', 'results'),
  join('eval', 'summaries'),
];

function* sourceFiles(dir, root) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory() && OUTPUTS.some((output) => path === join(root, output))) continue;
    if (entry.isDirectory()) yield* sourceFiles(path, root);
    else if (/\.(?:ts|json|sql)$/.test(entry.name)) yield path;
  }
}

function sourcesNow(root) {
  let newest = 0;
  let count = 0;
  for (const dir of SOURCE_ROOTS) {
    for (const file of sourceFiles(join(root, dir), root)) {
      newest = Math.max(newest, statSync(file).mtimeMs);
      count++;
    }
  }
  for (const file of CONFIGS) if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  return { newest, count };
}

const buildInfoOf = (root) => join(root, 'dist', '.tsbuildinfo');
const stampOf = (root) => join(root, 'dist', '.api-sources');

export function apiBuildIsCurrent(root) {
  const now = sourcesNow(root);
  return (
    existsSync(buildInfoOf(root)) &&
    existsSync(stampOf(root)) &&
    statSync(buildInfoOf(root)).mtimeMs >= now.newest &&
    readFileSync(stampOf(root), 'utf8') === String(now.count)
  );
}

/** After a build: tsc leaves the build info untouched when it had nothing to emit, so it is dated now. */
export function markApiBuilt(root) {
  writeFileSync(stampOf(root), String(sourcesNow(root).count));
  writeFileSync(buildInfoOf(root), readFileSync(buildInfoOf(root)));
}
