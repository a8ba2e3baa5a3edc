import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { BootLogger } from '@loci/common';
import { loadSettings, SettingsError } from '@loci/config';
import { loggableError } from '@loci/db';
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
    logger: new BootLogger(settings.logLevel),
    abortOnError: false,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  // The worker process always consumes the queue, whatever LOCI_RUN_WORKER says for the API.
  app.get(IngestWorker).start();
  // Keep the process alive until a shutdown signal.
  const keepAlive = setInterval(() => undefined, 60_000);
  // On SIGTERM/SIGINT: closing the app stops claiming at once, gives running jobs
  // LOCI_SHUTDOWN_GRACE_MS to finish (then back to the queue), closes the pools, and the
  // process exits 0 (Nest's own hooks would raise the signal again: exit 143).
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal}: no new jobs; finishing running ones (at most ${settings.shutdownGraceMs} ms)`, 'Shutdown');
    app.close().then(
      () => {
        clearInterval(keepAlive);
        process.exit(0);
      },
      (error: unknown) => {
        console.error(JSON.stringify({ msg: 'shutdown failed', err: loggableError(error) }));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  // The record, not the error: a failed statement's message (the operator bootstrap's, say)
  // carries its parameters.
  console.error(JSON.stringify({ msg: 'failed to start', err: loggableError(error) }));
  process.exit(1);
});
