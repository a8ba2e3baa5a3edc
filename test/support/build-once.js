// Jest's global setup: tests that start the server as `npm start` does (first-run, the lock of
// the embedded store, the CLI, the console in a browser) need dist/. A fresh clone has none, and
// two jest workers building it at once would write over each other's files, so it is built here,
// once, before any worker starts. An existing dist/ is used as it is (`npm run build` refreshes it).
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '../..');
const NEEDED = ['dist/apps/api/src/main.js', 'dist/apps/cli/src/loci.js', 'dist/console/index.html'];

module.exports = async function buildOnce() {
  if (NEEDED.every((file) => existsSync(join(ROOT, file)))) return;
  process.stdout.write('\nbuilding dist/ once (npm run build) for the tests that start the built server...\n');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', timeout: 600_000 });
};
