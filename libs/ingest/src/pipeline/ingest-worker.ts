import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { JobQueue, JobRunner } from '../queue';
import { INGEST_DOCUMENT_JOB, IngestJobHandler } from './ingest-job';

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

  constructor(
    queue: JobQueue,
    handler: IngestJobHandler,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.runner = new JobRunner(queue, { logger: this.logger });
    this.runner.register(INGEST_DOCUMENT_JOB, (job, context) => handler.handle(job, context));
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
  }

  wake(): void {
    if (this.running) this.runner.notify();
  }

  /** Resolves when no job is ready and none is running (tests). */
  drain(): Promise<void> {
    return this.runner.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.running) await this.runner.stop();
    this.running = false;
  }
}
