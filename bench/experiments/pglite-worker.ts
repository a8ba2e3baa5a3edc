import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import { loadSettings } from '@loci/config';
import { WorkerModule } from '../../apps/worker/src/worker.module';

/**
 * A worker's application context on a PGlite store in `dataDir`, with the offline providers and
 * its queue not started (the bench starts it): `env` adds to or overrides these settings.
 */
export function pgliteWorker(dataDir: string, env: Record<string, string>) {
  const settings = loadSettings({
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    LOCI_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    DATABASE_URL: undefined,
    LOCI_DATA_DIR: dataDir,
    LOCI_RUN_WORKER: 'false',
    ...env,
  });
  return NestFactory.createApplicationContext(WorkerModule.forRoot(settings), { logger: ['error', 'warn'], abortOnError: false });
}
