import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Every CPU worker thread loads cpu-tasks and what it imports. Through `@loci/db`'s index a thread
 * loaded NestJS, drizzle and both database drivers (784 modules, ~0.4 s more CPU a thread at
 * start, and their heap in every thread) for one rounding function.
 */
describe('the modules a CPU worker thread loads', () => {
  const libs = resolve(__dirname, '../../..');
  const HEAVY = [/^@nestjs\//, /^drizzle-orm/, /^pg$/, /^@electric-sql\//, /^ioredis$/, /^@anthropic-ai\//, /^openai$/];

  /** Runtime imports (not `import type`), followed through relative paths and `@loci/*` package indexes. */
  function reachable(entry: string): { files: Set<string>; packages: Set<string> } {
    const files = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (files.has(file)) return;
      files.add(file);
      const source = readFileSync(file, 'utf8');
      const specifiers = [
        ...source.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm),
        ...source.matchAll(/require\(['"]([^'"]+)['"]\)/g),
      ].map((m) => m[1]);
      for (const specifier of specifiers) {
        const base = specifier.startsWith('.')
          ? resolve(dirname(file), specifier)
          : specifier.startsWith('@loci/')
            ? join(libs, specifier.slice('@loci/'.length), 'src', 'index')
            : undefined;
        if (!base) {
          packages.add(specifier);
          continue;
        }
        const found = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
        if (found) visit(found);
      }
    };
    visit(entry);
    return { files, packages };
  }

  it('include no framework, database driver or model SDK', () => {
    const { files, packages } = reachable(join(__dirname, 'cpu-tasks.ts'));
    expect(files.has(join(libs, 'llm/src/local/extractor.ts'))).toBe(true); // the walk follows imports
    expect([...packages].filter((name) => HEAVY.some((pattern) => pattern.test(name)))).toEqual([]);
    expect([...files].filter((file) => file.endsWith(join('db', 'src', 'index.ts')))).toEqual([]);
  });
});
