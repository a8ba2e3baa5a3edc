// Builds the console into dist/console only when its sources changed since the last build
// (npm start builds first, and a restart with nothing changed should not wait for Vite; issue
// 37.4). The sources: console/ (its code, styles, config) and the typed client it bundles. A
// hash of their paths and contents is kept beside the build; a build that fails leaves none.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = join(root, 'dist', 'console');
const stamp = join(outDir, '.source-hash');
const sources = [join(root, 'console'), join(root, 'packages', 'client', 'src'), join(root, 'package-lock.json')];

function* files(path) {
  const stat = statSync(path);
  if (stat.isFile()) return yield path;
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    yield* files(join(path, entry));
  }
}

const hash = createHash('sha256');
for (const source of sources.filter((s) => existsSync(s))) {
  for (const file of files(source)) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
}
const current = hash.digest('hex');

if (existsSync(join(outDir, 'index.html')) && existsSync(stamp) && readFileSync(stamp, 'utf8') === current) {
  process.exit(0);
}
await build({ configFile: join(root, 'console', 'vite.config.mts') });
writeFileSync(stamp, current);
