// Compiles the API, worker, CLI, bench and eval into dist (tsc, then tsc-alias for the @loci/*
// paths) unless nothing they are built from changed since the last build: npm start builds
// first, and a restart with nothing changed should answer at once (issue 37.4). tsc's own
// incremental mode still parses every file (~10 s here), and `tsc -b` needs composite
// projects, whose declaration emit this code base is not typed for. So the check is ours
// (api-build-state.mjs); when it finds a change, tsc is incremental and re-checks only what
// the change affects.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiBuildIsCurrent, markApiBuilt } from './api-build-state.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!apiBuildIsCurrent(root)) {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(bin('tsc-alias'), ['-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  markApiBuilt(root);
}
