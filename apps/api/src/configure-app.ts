import type { INestApplication } from '@nestjs/common';
import { Logger } from 'nestjs-pino';
import { jsonBodyMiddleware, requestIdMiddleware } from '@loci/http';
import { mountOpenApi } from './openapi';

/** Everything the HTTP app needs beyond its modules; shared by main.ts and the e2e tests. */
export function configureApp(app: INestApplication): void {
  app.useLogger(app.get(Logger));
  app.use(requestIdMiddleware);
  app.use(jsonBodyMiddleware());
  app.enableShutdownHooks();
  mountOpenApi(app);
}
