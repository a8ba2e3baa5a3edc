import { loadSettings } from '@loci/config';
import { findMigrationsFolder } from './migrations-folder';
import { DataDirectoryInUseError } from './data-directory-lock';
import { openDatabase } from './open-database';

/** `npm run migrate`: applies pending migrations to the configured store and exits. */
async function main(): Promise<void> {
  const settings = loadSettings();
  const database = await openDatabase(settings);
  try {
    await database.migrate(findMigrationsFolder());
    console.log(`migrations applied (${database.kind})`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof DataDirectoryInUseError ? 75 : 1);
});
