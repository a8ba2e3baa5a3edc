import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const MAX_LINES = 600;
const MAX_TRACKED_RESULT_BYTES = 1_000_000;
const MAX_BENCH_TOP_LEVEL = 20;

const lines = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n').length;
const tracked = (...paths: string[]) =>
  execFileSync('git', ['ls-files', ...paths], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);

/**
 * What a new engineer meets when they open the repository (docs/decisions/0070-results-out-of-git.md):
 * pages short enough to read, results that are outputs and not source, tools that can be found,
 * and the two paths a newcomer must understand two hops from the README.
 */
describe('the repository a new engineer opens', () => {
  it(`keeps the README and each page of docs/ within ${MAX_LINES} lines (history goes to docs/journal/)`, () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    expect(pages.filter((page) => lines(page) > MAX_LINES)).toEqual([]);
  });

  it('tracks no results files, and at most 1 MB of the summaries the docs cite', () => {
    expect(tracked('eval/results', 'bench/results')).toEqual([]);
    const bytes = tracked('eval/summaries', 'bench/summaries').reduce((sum, file) => sum + statSync(join(ROOT, file)).size, 0);
    expect(bytes).toBeLessThanOrEqual(MAX_TRACKED_RESULT_BYTES);
  });

  it(`keeps bench/'s top level to the harness (at most ${MAX_BENCH_TOP_LEVEL} files) with a README naming each command`, () => {
    const topLevel = readdirSync(join(ROOT, 'bench'), { withFileTypes: true }).filter((entry) => entry.isFile());
    expect(topLevel.length).toBeLessThanOrEqual(MAX_BENCH_TOP_LEVEL);
    expect(readFileSync(join(ROOT, 'bench/README.md'), 'utf8')).toMatch(/npm run bench -- neighbours/);
  });

  it('leads from the README to how a question is answered and how a document is ingested', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/ARCHITECTURE.md)');
    const architecture = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    expect(architecture).toMatch(/^## How a question is answered/m);
    expect(architecture).toMatch(/^## How a document is ingested/m);
  });
});
