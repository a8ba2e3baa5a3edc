import { resolve } from 'node:path';
import { readOrCreateDataDirSecret } from './data-dir-secret';
import { parseSettings, RawSettings } from './settings.schema';

/** The resolved, typed settings every module receives (via the SETTINGS token). */
export interface Settings {
  env: RawSettings['NODE_ENV'];
  port: number;
  host: string;
  logLevel: RawSettings['LOG_LEVEL'];
  dataDir: string;
  database: { url?: string; poolMax: number; migrateOnStart: boolean };
  redis: { url?: string };
  jwt: { secret: string; secretSource: 'env' | 'data-dir'; ttlSeconds: number };
  bootstrapOperator?: { email: string; password: string };
}

export const SETTINGS = Symbol('SETTINGS');

/** Reads and validates the environment, and fills the embedded defaults that need the disk. */
export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const raw = parseSettings(env);
  const dataDir = resolve(raw.LOCI_DATA_DIR);
  return {
    env: raw.NODE_ENV,
    port: raw.PORT,
    host: raw.HOST,
    logLevel: raw.LOG_LEVEL,
    dataDir,
    database: { url: raw.DATABASE_URL, poolMax: raw.LOCI_DB_POOL_MAX, migrateOnStart: raw.LOCI_MIGRATE_ON_START },
    redis: { url: raw.REDIS_URL },
    jwt: {
      secret: raw.JWT_SECRET ?? readOrCreateDataDirSecret(dataDir, 'jwt_secret'),
      secretSource: raw.JWT_SECRET ? 'env' : 'data-dir',
      ttlSeconds: raw.JWT_TTL_SECONDS,
    },
    bootstrapOperator:
      raw.LOCI_BOOTSTRAP_OPERATOR_EMAIL && raw.LOCI_BOOTSTRAP_OPERATOR_PASSWORD
        ? { email: raw.LOCI_BOOTSTRAP_OPERATOR_EMAIL, password: raw.LOCI_BOOTSTRAP_OPERATOR_PASSWORD }
        : undefined,
  };
}
