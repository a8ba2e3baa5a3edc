import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Finds the repository's `migrations/` folder by walking up from this file, so the same code
 * works from sources (ts-jest), from `dist/`, and in the container image.
 */
export function findMigrationsFolder(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, 'meta', '_journal.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`No migrations/meta/_journal.json above ${from}`);
    dir = parent;
  }
}

/** How many migrations the code ships (drizzle-kit's journal). */
export function shippedMigrationCount(migrationsFolder: string): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}
