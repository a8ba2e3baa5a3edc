import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { loadSettings, SettingsError } from '@loci/config';
import { loggableError } from '@loci/db';
import { createApp } from './create-app';
import { OperatorBootstrapService } from './operator-bootstrap.service';
import { shutDownGracefullyOnSignals } from './graceful-shutdown';

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
  const app = await createApp(settings);
  shutDownGracefullyOnSignals(app, settings.shutdownGraceMs);
  await app.listen(settings.port, settings.host);
  // Through the app's logger, after every boot line, so the log reads in order and in one shape.
  const logger = new Logger('Loci');
  logger.log(`listening on http://${settings.host}:${settings.port}${settings.http.apiDocs ? ' (docs at /docs)' : ''}`);
  const hint = app.get(OperatorBootstrapService).firstRunHint();
  if (hint) logger.warn(hint);
}

main().catch((error: unknown) => {
  // The record, not the error: a failed statement's message (the operator bootstrap's, say)
  // carries its parameters.
  console.error(JSON.stringify({ msg: 'failed to start', err: loggableError(error) }));
  process.exit(1);
});
