import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BootLogger, logDestination } from '@loci/common';
import type { Settings } from '@loci/config';
import { ModelRouter, PriceTable } from '@loci/llm';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

/** Builds the configured (not yet listening) HTTP application; tests may catch its log lines. */
export async function createApp(settings: Settings, options: { logDestination?: NodeJS.WritableStream } = {}): Promise<INestApplication> {
  // Model settings are checked before anything opens (store, Redis), so a bad one fails fast
  // and leaves nothing behind; LlmModule checks them again when it builds the router.
  new ModelRouter(settings.llm, PriceTable.load(settings.llm.pricesFile));
  // Nest's own body parser is off: ours applies per-route limits and the routes' error shapes.
  const app = await NestFactory.create(AppModule.forRoot(settings, options.logDestination), {
    bodyParser: false,
    logger: new BootLogger(settings.logLevel, logDestination(settings.logFormat, options.logDestination)),
    // Throw boot errors (bad model settings, unreachable store) to the caller, which exits.
    abortOnError: false,
  });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  configureApp(app);
  return app;
}
