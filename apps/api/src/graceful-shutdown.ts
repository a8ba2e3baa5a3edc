import type { Server, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { finishSpans } from '@loci/common';
import { IngestWorker } from '@loci/ingest';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * What the API process does on SIGTERM (an orchestrator stopping it) or SIGINT: stop accepting
 * connections at once, stop claiming ingestion jobs, let requests in flight finish for up to
 * `graceMs` (each releases its concurrency slot and settles its reservations as it ends), then
 * close the app (in-process jobs finished or given back, pools and Redis closed) and exit 0.
 *
 * Nest's own signal hooks (configureApp) would close the app without bounding the wait, let the
 * worker claim jobs while the server drains, and raise the signal again (exit 143), so the
 * process entry point replaces them for these two signals. A request still running when the
 * grace ends has its connection closed; its slot and reservation then end with their leases,
 * as for a crashed process. Call before `listen`, so every request is seen.
 */
export function shutDownGracefullyOnSignals(app: INestApplication, graceMs: number): void {
  const logger = new Logger('Shutdown');
  const drain = new HttpDrain(app.getHttpServer() as Server);
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return; // a second signal while draining changes nothing
    started = true;
    logger.log(`${signal}: no new connections; finishing requests in flight (at most ${graceMs} ms)`);
    shutDown(app, drain, graceMs, logger).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    process.on(signal, onSignal);
  }
}

async function shutDown(app: INestApplication, drain: HttpDrain, graceMs: number, logger: Logger): Promise<void> {
  const drained = drain.start();
  const jobsStopped = stopClaimingJobs(app);
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'grace over'>((resolve) => (timer = setTimeout(() => resolve('grace over'), graceMs)));
  if ((await Promise.race([drained, graceOver])) === 'grace over') {
    logger.warn(`requests still running after ${graceMs} ms: closing their connections`);
    drain.closeAll();
    await drained;
  }
  clearTimeout(timer);
  await jobsStopped;
  await app.close(); // shutdown hooks: pools, Redis, worker threads
  await finishSpans(); // the batch exporter's last spans, those of the requests just finished
  logger.log('stopped');
}

/**
 * The HTTP side of a drain. `server.close()` refuses new connections and closes idle ones, but
 * a keep-alive connection whose request is still running would stay open after its response
 * (until the keep-alive timeout): every response from then on says `Connection: close`.
 */
class HttpDrain {
  private readonly live = new Set<ServerResponse>();
  private draining = false;

  constructor(private readonly server: Server) {
    server.on('request', (_request, response: ServerResponse) => {
      if (this.draining) response.shouldKeepAlive = false;
      this.live.add(response);
      response.once('close', () => this.live.delete(response));
      // Headers already sent when the drain began: close the connection once it is idle.
      response.once('finish', () => this.draining && setImmediate(() => server.closeIdleConnections()));
    });
  }

  /** Resolves once every connection has ended. */
  start(): Promise<void> {
    this.draining = true;
    for (const response of this.live) if (!response.headersSent) response.shouldKeepAlive = false;
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  closeAll(): void {
    this.server.closeAllConnections();
  }
}

/** The in-process worker stops claiming now; the jobs it runs finish or go back to the queue. */
async function stopClaimingJobs(app: INestApplication): Promise<void> {
  let worker: IngestWorker;
  try {
    worker = app.get(IngestWorker, { strict: false });
  } catch {
    return; // not part of this app
  }
  await worker.onApplicationShutdown();
}
