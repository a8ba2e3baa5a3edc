import 'reflect-metadata';
import { loadSettings, SettingsError, type Settings } from '@loci/config';

/**
 * Only the settings are loaded before tracing starts: OpenTelemetry's instrumentations patch
 * http, express, pg, ioredis and pino as they are required, so everything else is required
 * after it (below, by `import()`). With no collector named, `@loci/tracing` is never required
 * and nothing of OpenTelemetry is loaded.
 */
async function main(): Promise<void> {
  let settings: Settings;
  try {
    settings = loadSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  const { endpoint } = settings.tracing;
  const spans = endpoint ? (await import('@loci/tracing')).startTracing({ ...settings.tracing, endpoint }, 'loci-api') : undefined;
  if (spans) (await import('@loci/common')).installSpanRecorder(spans);
  const { Logger } = await import('@nestjs/common');
  const { createApp } = await import('./create-app');
  const { OperatorBootstrapService } = await import('./operator-bootstrap.service');
  const { shutDownGracefullyOnSignals } = await import('./graceful-shutdown');
  // A busy port, then a store another process holds, are refused before anything is opened or built.
  if (settings.port !== 0) await (await import('./port-check')).ensurePortIsFree(settings.port, settings.host);
  await (await import('@loci/db')).ensureStoreIsFree(settings);
  const app = await createApp(settings);
  shutDownGracefullyOnSignals(app, settings.shutdownGraceMs);
  await app.listen(settings.port, settings.host);
  // Through the app's logger, after every boot line, so the log reads in order and in one shape;
  // what a newcomer needs next (where to go, how to sign in) is last.
  const logger = new Logger('Loci');
  const origin = `http://${settings.host}:${settings.port}`;
  logger.log(`listening on ${origin}${settings.http.apiDocs ? ' (docs at /docs)' : ''}`);
  const { consoleDir } = await import('./console-assets');
  if (consoleDir()) logger.log(`console at ${origin}/console`);
  const hint = app.get(OperatorBootstrapService).firstRunHint();
  if (hint) logger.warn(hint);
}

main().catch(async (error: unknown) => {
  // The record, not the error: a failed statement's message (the operator bootstrap's, say)
  // carries its parameters.
  const { DataDirectoryInUseError, loggableError } = await import('@loci/db');
  const { PortInUseError } = await import('./port-check');
  if (error instanceof DataDirectoryInUseError || error instanceof PortInUseError) {
    // Not a failure of this process: say what is taken and what to do, in plain words.
    console.error(error.message);
    process.exit(75); // EX_TEMPFAIL: try again once the other process has stopped
  }
  console.error(JSON.stringify({ msg: 'failed to start', err: loggableError(error) }));
  process.exit(1);
});
