import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '@loci/config';
import { Database } from './database';
import { lockDataDirectory } from './data-directory-lock';
import { PgliteDatabase } from './pglite.database';
import { PostgresDatabase } from './postgres.database';

/** DATABASE_URL set → PostgreSQL; otherwise the embedded PGlite under LOCI_DATA_DIR. */
export async function openDatabase(settings: Pick<Settings, 'database' | 'dataDir'>): Promise<Database> {
  const { url, poolMax, acquireTimeoutMs, sessionUrl } = settings.database;
  if (url) return PostgresDatabase.connect(url, poolMax, acquireTimeoutMs, sessionUrl);
  return PgliteDatabase.open(join(settings.dataDir, 'pglite'));
}

/**
 * Before a process builds its modules: an embedded store another process holds is refused
 * here, as a DataDirectoryInUseError its caller prints in plain words, rather than from inside
 * the module graph (where the framework logs it with a stack trace first). The lock is taken
 * and given back; opening the store takes it again.
 */
export async function ensureStoreIsFree(settings: Pick<Settings, 'database' | 'dataDir'>): Promise<void> {
  if (settings.database.url) return;
  const directory = join(settings.dataDir, 'pglite');
  if (!existsSync(directory)) return;
  const lock = await lockDataDirectory(directory, () => undefined);
  await lock.release();
}
