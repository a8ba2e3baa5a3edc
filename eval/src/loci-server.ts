import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { loadSettings } from '@loci/config';
import { ModelGateway } from '@loci/llm';
import { createApp } from '../../apps/api/src/create-app';

/** The operator the eval's store is created with, and logs in as on every run. */
export const EVAL_OPERATOR = { email: 'eval-operator@loci.invalid', password: 'eval-operator-password' };

export interface LociServer {
  url: string;
  /** The embedder (`provider:model`) ingestion and questions use: LOCI_EMBED_MODEL or the default. */
  embedder: string;
  /** The application itself, for what the eval reads in process (the gb context sent to the answerer). */
  app: INestApplication;
  close(): Promise<void>;
}

export interface LociServerOptions {
  /** LOCI_DATA_DIR: the PGlite store (without databaseUrl) and the generated JWT secret. */
  dataDir: string;
  /** PostgreSQL instead of the embedded store. */
  databaseUrl?: string;
  logLevel?: string;
}

/**
 * The API with its in-process ingestion worker, on a loopback port, as `npm start` runs it:
 * default settings (the offline local provider, in-process limits), the caller's LOCI_* tuning
 * passed through, provider keys and REDIS_URL not. It runs in the eval's process, so one
 * command owns the store's whole life; questions are still asked over HTTP.
 */
export async function startLociServer(options: LociServerOptions): Promise<LociServer> {
  const tuning = Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith('LOCI_')));
  const settings = loadSettings({
    // Production requires both secrets; the eval's tokens live for one run and its tenant
    // stores no provider key, so fresh ones do (the caller's LOCI_ENCRYPTION_KEY wins).
    LOCI_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ...tuning,
    JWT_SECRET: randomBytes(48).toString('base64'),
    NODE_ENV: 'production',
    LOG_LEVEL: options.logLevel ?? 'warn',
    DATABASE_URL: options.databaseUrl,
    LOCI_DATA_DIR: options.dataDir,
    LOCI_RUN_WORKER: 'true',
    LOCI_MIGRATE_ON_START: 'true',
    LOCI_BOOTSTRAP_OPERATOR_EMAIL: EVAL_OPERATOR.email,
    LOCI_BOOTSTRAP_OPERATOR_PASSWORD: EVAL_OPERATOR.password,
  });
  const app: INestApplication = await createApp(settings);
  await app.listen(0, '127.0.0.1');
  const http = app.getHttpServer() as import('node:http').Server;
  // Idle sockets stay open longer than the eval ever waits between requests (Node's default is
  // 5 s), so the client rarely reuses a socket the server is closing.
  http.keepAliveTimeout = 120_000;
  const address = http.address() as { port: number };
  const embedder = app.get(ModelGateway).router.choose('embed').spec;
  return { url: `http://127.0.0.1:${address.port}`, embedder, app, close: () => app.close() };
}

/** LOCI_* settings that change what ingestion writes; part of the store's cache key. */
export function ingestionTuning(): Record<string, string> {
  const ignored = /^LOCI_(DATA_DIR|BOOTSTRAP_|DB_POOL|QUERY_|GB_|RUN_WORKER|MIGRATE_ON_START)/;
  return Object.fromEntries(
    Object.entries(process.env)
      .filter((entry): entry is [string, string] => entry[0].startsWith('LOCI_') && !ignored.test(entry[0]) && entry[1] !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
