import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConflictError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { BulkLoadRepository, BulkLoadState, Database, DATABASE, GraphsRepository } from '@loci/db';
import { Job, JobQueue } from '../queue';

export const BUILD_OWN_INDEXES_JOB = 'build_own_indexes';

export interface BuildOwnIndexesPayload {
  graphId: number;
}

/** What `/v1/bulk-load` answers: the default graph's bulk load. */
export interface BulkLoadStatus {
  state: BulkLoadState;
  startedAt: Date | null;
}

/**
 * Bulk mode for a first load of a large corpus (issue 16.3; docs/decisions/0029-bulk-mode.md, "Bulk mode: a
 * graph's own HNSW tier"). While a tenant's default graph loads, its searched vectors go to
 * columns no shared HNSW index covers, so its chunks cost no insertion into the indexes every
 * tenant shares, and its questions read its rows exactly; when the load ends the worker builds
 * the graph's own HNSW indexes once (`BUILD_OWN_INDEXES_JOB`), and from then on the graph's
 * writes and searches use those. A graph stays in its own tier afterwards.
 *
 * - `begin`: `loading`. The graph's existing vectors move to its own columns in the same
 *   transaction, which waits for chunks being written (they hold the graph row FOR SHARE), so
 *   nothing the graph held is left where its searches no longer look. Again while loading: the
 *   same answer. After a load ended: 409 (its indexes exist; see docs/decisions/0029-bulk-mode.md).
 * - `finish`: `indexing`, and the build is queued in the same transaction (a process that dies
 *   after the commit leaves the job to another worker). Again: the same answer.
 * - The build: each own column in use gets its index, CONCURRENTLY (writes to the shared tables
 *   go on); an index a dead build left invalid is dropped and built again; then `indexed`.
 */
@Injectable()
export class BulkLoadService {
  private readonly logger = new Logger('BulkLoad');

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly graphs: GraphsRepository,
    private readonly bulk: BulkLoadRepository,
    private readonly queue: JobQueue,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async status(tenantId: string): Promise<BulkLoadStatus> {
    const graph = await this.graphs.defaultGraph(tenantId);
    return this.bulk.state(tenantId, graph.id);
  }

  async begin(tenantId: string): Promise<BulkLoadStatus> {
    if (this.database.kind === 'pglite') {
      // The build runs on the one thread that also answers requests: a large graph's indexes
      // would hold every request for the whole build.
      throw new ConflictError('Bulk mode needs the PostgreSQL store (DATABASE_URL): on the embedded store a graph is loaded as it is.');
    }
    const graph = await this.graphs.defaultGraph(tenantId);
    await this.database.db.transaction(async (tx) => {
      const state = await this.bulk.lockState(tx, tenantId, graph.id);
      if (state === 'loading') return;
      if (state !== 'none') {
        throw new ConflictError(
          `This graph's bulk load has ended (${state}): it keeps its own indexes, and documents uploaded now are indexed as they are written.`,
        );
      }
      const max = this.settings.ingest.bulkLoadGraphsMax;
      // Begins of different graphs count the same graphs: one at a time, so the maximum holds.
      await this.bulk.serializeBegins(tx);
      if ((await this.bulk.graphsWithOwnVectors(tx)) >= max) {
        throw new ConflictError(
          max === 0 ? 'Bulk mode is turned off on this server.' : `This server holds its maximum of ${max} graphs with indexes of their own; upload without bulk mode.`,
        );
      }
      await this.bulk.setState(tx, tenantId, graph.id, 'loading');
      const moved = await this.bulk.moveToOwnColumns(tx, tenantId, graph.id);
      this.logger.log(`graph ${graph.id} of tenant ${tenantId}: bulk load began (moved ${JSON.stringify(moved)})`);
    });
    return this.bulk.state(tenantId, graph.id);
  }

  async finish(tenantId: string): Promise<BulkLoadStatus> {
    const graph = await this.graphs.defaultGraph(tenantId);
    if ((await this.finishGraph(tenantId, graph.id)) === 'none') {
      throw new ConflictError('This graph has no bulk load to finish: start one with POST /v1/bulk-load.');
    }
    return this.bulk.state(tenantId, graph.id);
  }

  /**
   * Finishes the loads whose client went away without finishing them (nothing ingested or
   * uploaded for LOCI_BULK_LOAD_IDLE_MS): a graph left loading would search its rows exactly
   * for good. The worker runs this every minute. Answers how many it finished.
   */
  async finishIdleLoads(): Promise<number> {
    if (this.database.kind === 'pglite') return 0;
    const idle = await this.bulk.idleLoads(this.settings.ingest.bulkLoadIdleMs);
    for (const { tenantId, graphId } of idle) {
      await this.finishGraph(tenantId, graphId);
      this.logger.log(`graph ${graphId} of tenant ${tenantId}: bulk load finished after ${this.settings.ingest.bulkLoadIdleMs} ms without activity`);
    }
    return idle.length;
  }

  /** Ends a graph's load (the build queued in the same transaction); answers the state it found. */
  private async finishGraph(tenantId: string, graphId: number): Promise<BulkLoadState> {
    let queued = false;
    const found = await this.database.db.transaction(async (tx) => {
      const state = await this.bulk.lockState(tx, tenantId, graphId);
      if (state !== 'loading') return state;
      // A chunk whose transaction read the shared tier just before the load began, and any row
      // a re-embedding wrote there meanwhile, is swept up before the indexes are built.
      await this.bulk.moveToOwnColumns(tx, tenantId, graphId);
      await this.bulk.setState(tx, tenantId, graphId, 'indexing');
      const payload: BuildOwnIndexesPayload = { graphId };
      // Background: a bulk load's index build waits for every tenant's ordinary documents.
      await this.queue.enqueue(tenantId, BUILD_OWN_INDEXES_JOB, payload, { db: tx, background: true });
      queued = true;
      return state;
    });
    if (queued) this.queue.notify();
    return found;
  }

  /**
   * Drops the own indexes of graphs deleted with their tenant (after the deletion commits: a
   * drop inside it would lock the shared table for as long as the deletion runs). A process that
   * dies first leaves them to the next deletion or worker start. Answers how many went.
   */
  async dropIndexesOfDeletedGraphs(): Promise<number> {
    if (this.database.kind === 'pglite') return 0;
    const orphans = await this.bulk.ownIndexesOfDeletedGraphs();
    for (const name of orphans) await this.bulk.dropOwnIndex(name);
    if (orphans.length > 0) this.logger.log(`dropped ${orphans.length} own indexes of deleted graphs`);
    return orphans.length;
  }

  /** The queue's handler for BUILD_OWN_INDEXES_JOB; runs again from the start after any failure. */
  async buildOwnIndexes(job: Job): Promise<void> {
    const { graphId } = job.payload as BuildOwnIndexesPayload;
    const { state } = await this.bulk.state(job.tenantId, graphId);
    if (state !== 'indexing') return; // deleted with its tenant, or built by an earlier attempt
    const started = performance.now();
    const indexes = await this.bulk.ownColumnsInUse(job.tenantId, graphId);
    for (const index of indexes) await this.bulk.buildOwnIndex(graphId, index, this.settings.ingest.bulkIndexMemoryMb);
    await this.database.db.transaction(async (tx) => {
      if ((await this.bulk.lockState(tx, job.tenantId, graphId)) === 'indexing') {
        await this.bulk.setState(tx, job.tenantId, graphId, 'indexed');
      }
    });
    this.logger.log(
      `graph ${graphId} of tenant ${job.tenantId}: ${indexes.length} own indexes built in ${Math.round(performance.now() - started)} ms`,
    );
  }
}
