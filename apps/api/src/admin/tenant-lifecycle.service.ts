import { Inject, Injectable, Logger } from '@nestjs/common';
import { NotFoundError } from '@loci/common';
import { TenantStatus } from '@loci/auth';
import { Database, DATABASE, TenantLifecycleRepository, TenantRow } from '@loci/db';
import { BulkLoadService, IngestWorker, JobQueue } from '@loci/ingest';
import { LIMIT_STORE, LimitStore, SpendControl } from '@loci/quota';

/**
 * What operators do to a tenant's whole life: suspend it (every request refused, ingestion
 * paused), resume it, delete it with all its data (docs/decisions/0052-tenant-lifecycle.md, "Tenant lifecycle").
 */
@Injectable()
export class TenantLifecycleService {
  private readonly logger = new Logger('TenantLifecycle');

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly lifecycle: TenantLifecycleRepository,
    private readonly queue: JobQueue,
    private readonly ingestion: IngestWorker,
    private readonly status: TenantStatus,
    @Inject(LIMIT_STORE) private readonly limits: LimitStore,
    private readonly spend: SpendControl,
    private readonly bulkLoads: BulkLoadService,
  ) {}

  /**
   * Suspends the tenant and parks its queued jobs in one transaction. This process refuses the
   * tenant's requests at once; other instances within TENANT_STATUS_TTL_MS (API keys at once:
   * their requests read the tenant with the key). A job already running finishes its attempt.
   */
  async suspend(tenantId: string): Promise<TenantRow> {
    const tenant = await this.database.db.transaction(async (tx) => {
      const row = await this.lifecycle.setSuspended(tenantId, true, tx);
      if (row) await this.queue.pauseTenant(tenantId, { db: tx });
      return row;
    });
    if (!tenant) throw new NotFoundError('No such tenant.');
    this.status.remember(tenant.id, 'suspended');
    await this.spend.limitsChanged();
    return tenant;
  }

  /** Serves the tenant again and queues its parked jobs (those deferred at a cap defer again). */
  async resume(tenantId: string): Promise<TenantRow> {
    const tenant = await this.lifecycle.setSuspended(tenantId, false);
    if (!tenant) throw new NotFoundError('No such tenant.');
    this.status.remember(tenant.id, 'active');
    await this.spend.limitsChanged();
    await this.ingestion.resumeDeferred(tenant.id);
    return tenant;
  }

  /**
   * Deletes every row of the tenant in every table (its jobs, vectors and ledger included), then
   * its keys in the limit store. The rows go in one transaction; the limit keys after it, since
   * a request admitted just before could still write them. If the limit store cannot be reached
   * the deletion stands and the keys expire with their windows (a month at most): they hold
   * counters, no tenant data.
   */
  async delete(tenantId: string): Promise<void> {
    if (!(await this.lifecycle.delete(tenantId))) throw new NotFoundError('No such tenant.');
    this.status.remember(tenantId, 'gone');
    await this.spend.limitsChanged();
    // A bulk-loaded graph's own indexes are not rows: they go after the rows (docs/decisions/0029-bulk-mode.md, "Bulk
    // mode"), without the operator waiting (a drop waits for a build of the same table to end).
    void this.bulkLoads.dropIndexesOfDeletedGraphs().catch((error: unknown) =>
      this.logger.warn(`tenant ${tenantId} deleted, but its graphs' own indexes could not be dropped yet: ${error instanceof Error ? error.message : error}`),
    );
    try {
      const removed = await this.limits.forgetTenant(tenantId);
      this.logger.log(`tenant ${tenantId} deleted; ${removed} limit keys removed`);
    } catch (error) {
      this.logger.warn(
        `tenant ${tenantId} deleted, but its limit keys could not be removed (they expire with their windows): ${
          error instanceof Error ? error.message : error
        }`,
      );
    }
  }
}
