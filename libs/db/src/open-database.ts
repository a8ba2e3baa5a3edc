import { join } from 'node:path';
import type { Settings } from '@loci/config';
import { Database } from './database';
import { PgliteDatabase } from './pglite.database';
import { PostgresDatabase } from './postgres.database';

/** DATABASE_URL set → PostgreSQL; otherwise the embedded PGlite under LOCI_DATA_DIR. */
export async function openDatabase(settings: Pick<Settings, 'database' | 'dataDir'>): Promise<Database> {
  if (settings.database.url) return PostgresDatabase.connect(settings.database.url, settings.database.poolMax, settings.database.acquireTimeoutMs);
  return PgliteDatabase.open(join(settings.dataDir, 'pglite'));
}
