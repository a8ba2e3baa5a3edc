#!/usr/bin/env node
// Keeps a run the docs cite: results files (eval/results/, bench/results/) are not tracked by git,
// so a run a document quotes is kept as its summary, eval/summaries/<name>.json or
// bench/summaries/<name>.json: the report without its per-question rows (an eval's `questions`,
// often 0.3–2 MB each), everything else as it was (options, store, machine, source commit,
// the tables of numbers).
//
// Usage: node scripts/results-summary.mjs <results file>...
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Fields that hold one row per question: what a summary leaves out. */
const PER_QUESTION = ['questions'];

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('Usage: node scripts/results-summary.mjs <results file>...\n');
  process.exit(2);
}
for (const file of files) {
  const path = resolve(file);
  const resultsDir = dirname(path);
  if (basename(resultsDir) !== 'results') throw new Error(`${file} is not in a results folder (eval/results, bench/results)`);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  for (const field of PER_QUESTION) if (Array.isArray(report[field])) delete report[field];
  const out = join(dirname(resultsDir), 'summaries', basename(path));
  mkdirSync(dirname(out), { recursive: true });
  // One line: the kept summaries share a 1 MB budget (test/e2e/repository-shape), and indentation
  // was a third of their bytes. `node -e` or jq print one readably.
  writeFileSync(out, `${JSON.stringify(report)}\n`);
  process.stdout.write(`${out}\n`);
}
