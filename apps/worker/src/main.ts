import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { loadSettings, SettingsError } from '@loci/config';
import { IngestWorker } from '@loci/ingest';
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
  // The worker process always consumes the queue, whatever LOCI_RUN_WORKER says for the API.
  app.get(IngestWorker).start();
  // Keep the process alive until a shutdown signal; enableShutdownHooks closes the app then.
  const keepAlive = setInterval(() => undefined, 60_000);
  process.once('SIGTERM', () => clearInterval(keepAlive));
  process.once('SIGINT', () => clearInterval(keepAlive));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
