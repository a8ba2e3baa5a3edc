import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Settings } from '@loci/config';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

/** Builds the configured (not yet listening) HTTP application. */
export async function createApp(settings: Settings): Promise<INestApplication> {
  // Nest's own body parser is off: ours applies per-route limits and the routes' error shapes.
  const app = await NestFactory.create(AppModule.forRoot(settings), { bodyParser: false, bufferLogs: true });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  configureApp(app);
  return app;
}
