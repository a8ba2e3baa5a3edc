'use strict';
// Runs a command of the built project (dist/). Building is `npm run build`'s job: a call builds
// only when dist/ lacks the command (a fresh checkout), once, instead of on every call.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

module.exports = function runBuilt(relative) {
  const root = join(__dirname, '..');
  const target = join(root, 'dist', relative);
  if (!existsSync(target)) {
    process.stderr.write(`dist/${relative} is not built yet: running npm run build once\n`);
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  require(target).runFromProcess();
};
