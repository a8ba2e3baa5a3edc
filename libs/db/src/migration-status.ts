import { sql } from 'drizzle-orm';
import { Database, queryRows } from './database';
import { shippedMigrationCount } from './migrations-folder';

/** True when every migration the code ships is recorded as applied in the store. */
export async function migrationsApplied(database: Database, migrationsFolder: string): Promise<boolean> {
  const expected = shippedMigrationCount(migrationsFolder);
  try {
    const [row] = await queryRows<{ applied: number }>(
      database.db,
      sql`SELECT count(*)::int AS applied FROM drizzle.__drizzle_migrations`,
    );
    return Number(row?.applied ?? 0) >= expected;
  } catch {
    return false; // no migrations table yet
  }
}
