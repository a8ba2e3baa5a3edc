import type { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { Settings, SETTINGS } from '@loci/config';
import { jsonBodyMiddleware, requestIdMiddleware } from '@loci/http';
import { LociMetrics } from '@loci/metrics';
import { mountConsole } from './console-assets';
import { applyHttpHygiene } from './http-hygiene';
import { mountMcpOAuth } from './mcp/oauth/mount-mcp-oauth';
import { httpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { mountOpenApi } from './openapi';

/** Everything the HTTP app needs beyond its modules; shared by main.ts and the e2e tests. */
export function configureApp(app: INestApplication): void {
  const settings = app.get<Settings>(SETTINGS);
  app.useLogger(app.get(Logger));
  // First, so a request's time counts everything the app does with it.
  app.use(httpMetricsMiddleware(app.get(LociMetrics)));
  applyHttpHygiene(app, settings.http);
  app.use(requestIdMiddleware);
  app.use(jsonBodyMiddleware());
  mountMcpOAuth(app);
  app.enableShutdownHooks();
  if (settings.http.apiDocs) mountOpenApi(app);
  mountConsole(app);
}
