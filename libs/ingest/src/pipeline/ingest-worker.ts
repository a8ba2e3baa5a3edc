import { hostname } from 'node:os';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { inSpan } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { errorSummary } from '@loci/db';
import { Job, JobQueue, JobRunner } from '../queue';
import { OfflineVectorsMover } from '../reembed/offline-vectors-mover';
import { BUILD_OWN_INDEXES_JOB, BulkLoadService } from '../bulk/bulk-load.service';
import { GEO_BACKFILL_JOB, GeoBackfill } from '../geo/geo-backfill';
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
    private readonly bulkLoads: BulkLoadService,
    private readonly geoBackfill: GeoBackfill,
  ) {
    this.runner = new JobRunner(queue, { logger: this.logger });
    // With tracing on, a job is a trace of its own: its statements and model calls are its children.
    const traced = (job: Job, work: () => Promise<void>) =>
      inSpan(
        `job ${job.kind}`,
        { 'loci.job.kind': job.kind, 'loci.job.id': String(job.id), 'loci.job.attempt': job.attempts },
        work,
        { kind: 'consumer' },
      );
    this.runner.register(INGEST_DOCUMENT_JOB, (job, context) => traced(job, () => handler.handle(job, context)));
    this.runner.register(BUILD_OWN_INDEXES_JOB, (job) => traced(job, () => this.bulkLoads.buildOwnIndexes(job)));
    this.runner.register(GEO_BACKFILL_JOB, (job, context) => traced(job, () => this.geoBackfill.runJob(job, context)));
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
    // Bulk loads whose client died are finished on the same beat.
    this.resumeTimer = setInterval(() => {
      void this.resumeDeferred();
      void this.bulkLoads.finishIdleLoads().catch((error: unknown) => this.logger.warn(`could not finish idle bulk loads: ${errorSummary(error)}`));
    }, DEFERRED_RETRY_MS);
    this.resumeTimer.unref();
    // Rows another offline embedder wrote are invisible to this one's questions until moved.
    this.offlineVectors.start();
    // Own indexes a tenant deletion could not drop before its process died.
    void this.bulkLoads.dropIndexesOfDeletedGraphs().catch((error: unknown) => this.logger.warn(`own indexes of deleted graphs: ${errorSummary(error)}`));
    // Geo turned on since these entities were stored: their places get coordinates in the background.
    this.geoBackfill.start();
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
