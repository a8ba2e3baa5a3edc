import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { inSpan } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { errorSummary } from '@loci/db';
import { JobQueue, JobRunner } from '../queue';
import { OfflineVectorsMover } from '../reembed/offline-vectors-mover';
import { INGEST_DOCUMENT_JOB, IngestJobHandler } from './ingest-job';

const DEFERRED_RETRY_MS = 60_000;

/**
 * Consumes the ingestion queue in this process: in apps/worker always, and in the API when
 * LOCI_RUN_WORKER is true (the embedded default). `wake()` lets a request that just queued a
 * job start it at once instead of at the next poll.
 */
@Injectable()
export class IngestWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IngestWorker');
  private readonly runner: JobRunner;
  private running = false;
  private resumeTimer?: NodeJS.Timeout;

  constructor(
    private readonly queue: JobQueue,
    handler: IngestJobHandler,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly offlineVectors: OfflineVectorsMover,
  ) {
    this.runner = new JobRunner(queue, { logger: this.logger });
    // With tracing on, a job is a trace of its own: its statements and model calls are its children.
    this.runner.register(INGEST_DOCUMENT_JOB, (job, context) =>
      inSpan(
        `job ${job.kind}`,
        { 'loci.job.kind': job.kind, 'loci.job.id': String(job.id), 'loci.job.attempt': job.attempts },
        () => handler.handle(job, context),
        { kind: 'consumer' },
      ),
    );
  }

  onApplicationBootstrap(): void {
    if (this.settings.ingest.runWorkerInProcess) this.start();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.runner.start({
      workerId: `${hostname()}:${process.pid}`,
      concurrency: this.settings.ingest.workerConcurrency,
    });
    // Deferred documents (cost cap reached) are tried again every minute; one still over its
    // cap defers again before any model call, so this costs a query, not money.
    this.resumeTimer = setInterval(() => void this.resumeDeferred(), DEFERRED_RETRY_MS);
    this.resumeTimer.unref();
    // Rows another offline embedder wrote are invisible to this one's questions until moved.
    this.offlineVectors.start();
  }

  /** Puts deferred jobs (of one tenant, or all) back in the queue, e.g. after a cap was raised. */
  async resumeDeferred(tenantId?: string): Promise<number> {
    try {
      const resumed = await this.queue.resumeDeferred(tenantId);
      if (resumed > 0) this.wake();
      return resumed;
    } catch (error) {
      this.logger.warn(`could not resume deferred jobs: ${errorSummary(error)}`);
      return 0;
    }
  }

  wake(): void {
    if (this.running) this.runner.notify();
  }

  /** Resolves when no job is ready and none is running (tests). */
  drain(): Promise<void> {
    return this.runner.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.resumeTimer) clearInterval(this.resumeTimer);
    // Stops claiming at once; running jobs get the shutdown grace, then go back to the queue.
    if (this.running) await this.runner.stop({ graceMs: this.settings.shutdownGraceMs });
    this.running = false;
  }
}
