import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { loadSettings, SettingsError, type Settings } from '@loci/config';

/**
 * On SIGTERM/SIGINT: closing the app stops claiming at once, gives running jobs
 * LOCI_SHUTDOWN_GRACE_MS to finish (then back to the queue), closes the pools, and the
 * process exits 0 (Nest's own hooks would raise the signal again: exit 143).
 *
 * The handlers are installed before the app is created: with LOCI_RUN_WORKER on, the job
 * runner starts claiming during the app's bootstrap, so a signal that arrives then must
 * already be ours (otherwise Node's default kills the process with jobs half done). A signal
 * that arrives before the app exists is remembered and acted on as soon as it does.
 */
function installShutdown(settings: Settings, log: (app: INestApplicationContext, message: string) => void): (app: INestApplicationContext) => void {
  let app: INestApplicationContext | undefined;
  let requested: NodeJS.Signals | undefined;
  let stopping = false;
  const keepAlive = setInterval(() => undefined, 60_000);
  const stop = () => {
    if (stopping || !app || !requested) return;
    stopping = true;
    const closing = app;
    log(closing, `${requested}: no new jobs; finishing running ones (at most ${settings.shutdownGraceMs} ms)`);
    closing
      .close()
      // The batch exporter's last spans, those of the jobs just finished.
      .then(async () => (await import('@loci/common')).finishSpans())
      .then(
        () => {
          clearInterval(keepAlive);
          process.exit(0);
        },
        async (error: unknown) => {
          const { loggableError } = await import('@loci/db');
          console.error(JSON.stringify({ msg: 'shutdown failed', err: loggableError(error) }));
          process.exit(1);
        },
      );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    requested ??= signal;
    stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return (created) => {
    app = created;
    stop();
  };
}

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
  const appCreated = installShutdown(settings, (app, message) => {
    // Loaded by then: the app exists.
    void import('nestjs-pino').then(({ Logger }) => app.get(Logger).log(message, 'Shutdown'));
  });
  // Tracing first, then the modules it patches (see apps/api/src/main.ts).
  const { endpoint } = settings.tracing;
  const spans = endpoint ? (await import('@loci/tracing')).startTracing({ ...settings.tracing, endpoint }, 'loci-worker') : undefined;
  if (spans) (await import('@loci/common')).installSpanRecorder(spans);
  const { NestFactory } = await import('@nestjs/core');
  const { Logger } = await import('nestjs-pino');
  const { BootLogger, logDestination } = await import('@loci/common');
  const { IngestWorker } = await import('@loci/ingest');
  const { WorkerModule } = await import('./worker.module');
  // A store another process holds is refused before the modules are built (see ensureStoreIsFree).
  await (await import('@loci/db')).ensureStoreIsFree(settings);
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(settings), {
    logger: new BootLogger(settings.logLevel, logDestination(settings.logFormat)),
    abortOnError: false,
  });
  app.useLogger(app.get(Logger));
  // The worker process always consumes the queue, whatever LOCI_RUN_WORKER says for the API.
  app.get(IngestWorker).start();
  appCreated(app);
}

main().catch(async (error: unknown) => {
  const { DataDirectoryInUseError, loggableError } = await import('@loci/db');
  if (error instanceof DataDirectoryInUseError) {
    // Not a failure of this process: say who holds the store and what to do, in plain words.
    console.error(error.message);
    process.exit(75); // EX_TEMPFAIL: try again once the other process has stopped
  }
  // The record, not the error: a failed statement's message (the operator bootstrap's, say)
  // carries its parameters.
  console.error(JSON.stringify({ msg: 'failed to start', err: loggableError(error) }));
  process.exit(1);
});
