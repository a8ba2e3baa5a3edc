import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type { Settings } from '@loci/config';
import { createTestEnvironment } from '@loci/testing';
import { createApp } from '../../apps/api/src/create-app';

export interface TestApp {
  app: INestApplication;
  settings: Settings;
  http: TestAgent;
  close(): Promise<void>;
}

/**
 * Boots the real application (real store, real limit store) for one test file.
 * `logDestination` receives its JSON log lines (set LOG_LEVEL in `env`; tests default to silent).
 * `replicaUrls`: streaming replicas of the test's PostgreSQL server; DATABASE_READ_URL names the
 * test's own database on each.
 */
export async function startTestApp(
  env: Record<string, string | undefined> = {},
  options: { logDestination?: NodeJS.WritableStream; replicaUrls?: string[] } = {},
): Promise<TestApp> {
  const { replicaUrls, ...appOptions } = options;
  const environment = await createTestEnvironment(env, { replicaUrls });
  let app: INestApplication;
  try {
    app = await createApp(environment.settings, appOptions);
    await app.init();
  } catch (error) {
    await environment.cleanup();
    throw error;
  }
  return {
    app,
    settings: environment.settings,
    http: request(app.getHttpServer()),
    async close() {
      await app.close();
      await environment.cleanup();
    },
  };
}
