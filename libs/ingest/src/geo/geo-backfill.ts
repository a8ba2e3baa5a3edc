import { Inject, Injectable, Logger } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { Database, DATABASE, Db, errorSummary, GeoBackfillRepository, GraphWritesRepository } from '@loci/db';
import { placeCoordinates } from '@loci/geo';
import { Job, JobContext, JobQueue } from '../queue';

export const GEO_BACKFILL_JOB = 'geo_backfill';

/**
 * Entities read in one transaction: one page of the tenant's primary key, whatever their type.
 * Bounded by rows read, not by places found, so a page costs the same in a graph of people.
 */
export const ENTITIES_A_PAGE = 200;

/**
 * Pages one job goes through before it queues the rest of its tenant behind every job already
 * waiting: 1,000 entities, five short transactions of four statements each.
 */
const PAGES_A_JOB = 5;

/** What a run did: entities tried, of which given coordinates, and whether none is left. */
export interface GeoBackfillRun {
  tried: number;
  located: number;
  done: boolean;
}

/**
 * Geo for what was remembered before geo was on (issue 40.9; docs/decisions/0042-geo-backfill.md, "Geo for what
 * was remembered before geo was on"). Ingestion gives a place entity the gazetteer's coordinates
 * only while geo is on; an entity stored while it was off has none, so the nearby search could
 * not find it. When a worker starts with geo on, each tenant with entities the backfill has not
 * tried gets a job (`GEO_BACKFILL_JOB`) that gives them the coordinates ingestion would have.
 *
 * - *Tried once.* A page of the tenant's entities (id order) and its progress commit together
 *   (`geo_backfill_progress`): a name the gazetteer does not know is never looked up again, a
 *   crash loses at most the page under way, and a second run repeats nothing.
 * - *One tenant cannot hold the worker.* A job goes through PAGES_A_JOB pages, then queues the
 *   rest of its tenant as a new job, behind the jobs already waiting (the queue hands out the
 *   oldest first): a tenant with a million entities takes one worker slot for one such job at a
 *   time, and other tenants' documents queued meanwhile wait for at most one such job a slot.
 *   A tenant never has two of these jobs waiting (the queueing skips tenants that have one).
 * - *Beside ingestion.* A page takes remember's name locks for its places before it writes, and
 *   writes only entities that still have no coordinates; an entity's coordinates are never moved.
 */
@Injectable()
export class GeoBackfill {
  private readonly logger = new Logger('GeoBackfill');
  private queueing?: Promise<number>;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly backfill: GeoBackfillRepository,
    private readonly writes: GraphWritesRepository,
    private readonly queue: JobQueue,
  ) {}

  /** Queues the backfill in the background, once a process (a starting worker calls it); `queued()` waits for it. */
  start(): void {
    this.queueing ??= this.queueTenantsBehind().catch((error: unknown) => {
      // The next start tries again; nothing was queued, so nothing is half done.
      this.logger.warn(`could not queue the geo backfill: ${errorSummary(error)}`);
      return 0;
    });
  }

  /** How many tenants the start queued a job for (0 before a start, or when it failed). */
  queued(): Promise<number> {
    return this.queueing ?? Promise.resolve(0);
  }

  /** With geo on, a job for each tenant that has entities not tried yet; answers how many were queued. */
  async queueTenantsBehind(): Promise<number> {
    if (!this.settings.geo.enabled) return 0;
    const queued = await this.database.db.transaction(async (tx) => {
      await this.backfill.serializeQueueing(tx);
      const tenants = await this.backfill.tenantsBehind(GEO_BACKFILL_JOB, tx);
      // Background: the backfill waits for every tenant's documents and remembers.
      for (const tenantId of tenants) await this.queue.enqueue(tenantId, GEO_BACKFILL_JOB, {}, { db: tx, background: true });
      return tenants.length;
    });
    if (queued > 0) {
      this.queue.notify();
      this.logger.log(`geo is on: resolving the stored places of ${queued} tenants in the background`);
    }
    return queued;
  }

  /** The queue's handler for GEO_BACKFILL_JOB: a few pages, then the rest of the tenant is queued again. */
  async runJob(job: Job, context: JobContext): Promise<void> {
    // Geo turned off since the job was queued: the next start with geo on queues it again.
    if (!this.settings.geo.enabled) return;
    const run = await this.locateStoredPlaces(job.tenantId, { pages: PAGES_A_JOB, signal: context.signal });
    if (run.located > 0) this.logger.log(`tenant ${job.tenantId}: ${run.located} of ${run.tried} entities tried got coordinates`);
    if (!run.done) {
      await this.queue.enqueue(job.tenantId, GEO_BACKFILL_JOB, {}, { background: true });
      this.queue.notify();
    }
  }

  /**
   * Tries the tenant's entities after its progress, a page a transaction, for at most `pages`
   * pages (all of them without). Stops before a page once `signal` aborts.
   */
  async locateStoredPlaces(tenantId: string, options: { pages?: number; signal?: AbortSignal } = {}): Promise<GeoBackfillRun> {
    const run: GeoBackfillRun = { tried: 0, located: 0, done: false };
    for (let page = 0; page < (options.pages ?? Infinity); page++) {
      options.signal?.throwIfAborted();
      const { tried, located } = await this.database.db.transaction((tx) => this.locatePage(tx, tenantId));
      run.tried += tried;
      run.located += located;
      if (tried < ENTITIES_A_PAGE) {
        run.done = true;
        break;
      }
    }
    return run;
  }

  private async locatePage(tx: Db, tenantId: string): Promise<{ tried: number; located: number }> {
    const after = await this.backfill.progress(tenantId, tx);
    const page = await this.backfill.entitiesAfter(tx, tenantId, after, ENTITIES_A_PAGE);
    if (page.length === 0) return { tried: 0, located: 0 };
    const found = page.flatMap((entity) => {
      const place = entity.located ? undefined : placeCoordinates(entity.name, entity.type);
      return place ? [{ ...entity, ...place }] : [];
    });
    await this.writes.lockEntityNamesOfGraphs(tx, tenantId, found);
    const located = await this.writes.setMissingCoordinates(tx, tenantId, found);
    await this.backfill.recordProgress(tx, tenantId, page[page.length - 1].id);
    return { tried: page.length, located };
  }
}
