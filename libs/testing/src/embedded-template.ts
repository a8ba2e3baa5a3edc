import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import lockfile from 'proper-lockfile';
import { findMigrationsFolder, PgliteDatabase } from '@loci/db';
import { migrationsHash } from './test-database';

/**
 * The embedded store's counterpart of the PostgreSQL test templates: a PGlite data directory
 * migrated once per run (initdb alone takes ~3.5 s of WebAssembly on 2 cores, the migrations
 * ~0.5 s), copied into each test file's data directory in under a second. Named after the
 * migrations and PGlite's own version (its files are that version's format), built under a lock
 * shared by the jest workers, renamed into place only once complete. Templates of other
 * migration sets are removed once unused for TEMPLATE_DIRECTORY_IDLE_MS.
 */
const TEMPLATES_ROOT = join(tmpdir(), 'loci-test-pglite');
const TEMPLATE_DIRECTORY_IDLE_MS = 60 * 60_000;

/** Puts a migrated embedded store at `<dataDir>/pglite`, where the app opens it. */
export async function seedEmbeddedStore(dataDir: string): Promise<void> {
  const template = await ensureEmbeddedTemplate();
  cpSync(template, join(dataDir, 'pglite'), { recursive: true });
}

async function ensureEmbeddedTemplate(): Promise<string> {
  mkdirSync(TEMPLATES_ROOT, { recursive: true });
  const name = `${engineVersions()}-${migrationsHash(findMigrationsFolder())}`;
  const template = join(TEMPLATES_ROOT, name);
  if (existsSync(template)) return touched(template);
  const release = await lockfile.lock(TEMPLATES_ROOT, { realpath: false, stale: 30_000, retries: { retries: 120, minTimeout: 250, maxTimeout: 500 } });
  try {
    if (existsSync(template)) return touched(template);
    const building = `${template}.building`;
    rmSync(building, { recursive: true, force: true });
    const database = await PgliteDatabase.open(building);
    try {
      await database.migrate(findMigrationsFolder());
    } finally {
      await database.close();
    }
    renameSync(building, template);
    removeIdleTemplates(name);
    return template;
  } finally {
    await release();
  }
}

function touched(template: string): string {
  const now = new Date();
  try {
    // The directory's mtime marks its last use, so another checkout's run keeps a template it still uses.
    utimesSync(template, now, now);
  } catch {
    // Marking is best effort: an unmarked template is only removed sooner.
  }
  return template;
}

function removeIdleTemplates(keep: string): void {
  for (const entry of readdirSync(TEMPLATES_ROOT)) {
    if (entry === keep || entry.endsWith('.building') || entry.endsWith('.lock') || entry.endsWith('.owner.json')) continue;
    const path = join(TEMPLATES_ROOT, entry);
    if (Date.now() - statSync(path).mtimeMs > TEMPLATE_DIRECTORY_IDLE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** PGlite's and pgvector's versions: the files are their format, and the extension is installed in them. */
function engineVersions(): string {
  return `pglite${packageVersion('@electric-sql/pglite')}-vector${packageVersion('@electric-sql/pglite-pgvector')}`;
}

/** A package's version from its package.json, which these packages do not export. */
function packageVersion(name: string): string {
  const entry = require.resolve(name);
  const root = entry.slice(0, entry.lastIndexOf(`${sep}${name.split('/').join(sep)}${sep}`) + name.length + 2);
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
