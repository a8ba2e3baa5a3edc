import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadSettings, SettingsError } from '@loci/config';
import { WorkerModule } from './worker.module';

async function main(): Promise<void> {
  let settings;
  try {
    settings = loadSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), {
    bufferLogs: true,
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  app.enableShutdownHooks();
  logger.log('worker started; no job kinds are registered yet (ingestion jobs come with the ingestion pipeline)');
  // Keep the process alive until a shutdown signal; enableShutdownHooks closes the app then.
  const keepAlive = setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => clearInterval(keepAlive));
  process.once('SIGINT', () => clearInterval(keepAlive));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
