import { Logger } from '@nestjs/common';
import { errorSummary, PlatformLimitsRepository, TenantRow, TenantsRepository } from '@loci/db';
import type { LimitStore } from '../limit-store';

/**
 * The longest a cached limit row is used without reading it again, whatever the version says:
 * the bound for a change whose version bump never reached the store (the writing process died
 * between its commit and the bump, or could not reach the store and gave up retrying).
 */
export const LIMIT_ROWS_TTL_MS = 60_000;
/** How often a bump that failed is tried again (until LIMIT_ROWS_TTL_MS has passed). */
const BUMP_RETRY_MS = 1_000;
/** Entries kept before the old ones are dropped: bounds the cache on a platform of many tenants. */
const MAX_ENTRIES = 10_000;
/** A version no store hands out: the first admission asks the store for its version. */
const UNKNOWN = 'unknown';

/** What spend control reads of a tenant's row. */
export type TenantLimitRow = Pick<
  TenantRow,
  'id' | 'billing' | 'dailyCostCapMicros' | 'monthlyCostCapMicros' | 'dailyQueryQuota' | 'maxConcurrentQueries' | 'requestsPerMinute' | 'requestBurst'
>;

export interface LimitRowsRead {
  tenant: TenantLimitRow;
  /** The platform's daily cap; undefined when the tenant pays its own model calls. */
  platformCapMicros: number | null | undefined;
  /**
   * The limits version the cached rows among these were read under, for the store to check in
   * the same atomic step as the caps (Guard.limitsVersion); undefined when none is cached (the
   * tenant's row came with the request and the platform's is not needed).
   */
  version: string | undefined;
}

interface Entry<T> {
  value: T;
  version: string;
  at: number;
}

export class TenantGoneError extends Error {
  constructor(tenantId: string) {
    super(`tenant ${tenantId} vanished`);
  }
}

/**
 * The tenants' and the platform's limit rows, cached per process and kept true by a version in
 * the limit store (docs/decisions/0048-cached-limit-rows.md, "Cached limit rows"). Operators' changes bump the version
 * after their commit; admission and reservation send the version their rows were read under
 * with the atomic step that checks the caps, and a store whose version moved takes nothing and
 * answers it, so the rows are read again and the step retried: a change made through any
 * instance applies to the next request on every instance, at no round trip more. A row is only
 * ever tagged with a version learned before the read began, so a row older than its version
 * cannot be cached. LIMIT_ROWS_TTL_MS bounds what a lost bump can leave stale.
 */
export class LimitRows {
  private readonly logger = new Logger('SpendControl');
  private version = UNKNOWN;
  private readonly tenants = new Map<string, Entry<TenantLimitRow>>();
  private platform?: Entry<number | null>;
  private readonly reads = new Map<string, Promise<unknown>>();
  private retrying?: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<LimitStore, 'bumpLimitsVersion'>,
    private readonly tenantRows: Pick<TenantsRepository, 'findById'>,
    private readonly platformRows: Pick<PlatformLimitsRepository, 'get'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The rows admission or a reservation needs. `known`: the tenant's row as this request already
   * read it (an API key's principal), used as it is and not cached (it was read before the
   * version this process knows, so it may not be tagged with it).
   */
  async read(tenantId: string, known?: TenantRow): Promise<LimitRowsRead> {
    const version = this.version;
    const cachedTenant = known?.id !== tenantId;
    const tenant = cachedTenant ? await this.tenant(tenantId, version) : known;
    const platformCapMicros = tenant.billing === 'platform' ? await this.platformCap(version) : undefined;
    const cachedRows = cachedTenant || platformCapMicros !== undefined;
    return { tenant, platformCapMicros, version: cachedRows ? version : undefined };
  }

  /**
   * The tenant's row alone, for what needs no cap (its request rates): `known` as it is, else the
   * cached row. Not the platform's row: an API-key question, which no cap limits, read it on
   * every request (this process learns the limits version only from admissions).
   */
  async tenantRow(tenantId: string, known?: TenantRow): Promise<TenantLimitRow> {
    return known?.id === tenantId ? known : this.tenant(tenantId, this.version);
  }

  /** The store answered that its version is `version`: rows read from now on are tagged with it. */
  moved(version: string): void {
    this.version = version;
  }

  /**
   * Operators changed limits or a tenant's life (committed): this process forgets its rows at
   * once, and the store's version is bumped so every other instance reads them again on its next
   * request. A bump that fails is retried every second until it lands or LIMIT_ROWS_TTL_MS has
   * passed (by then every instance has read its rows again anyway). The caller is not failed: the
   * change is committed, and while the store cannot be reached no spending request is admitted.
   */
  async changed(): Promise<void> {
    this.version = UNKNOWN;
    try {
      this.version = await this.store.bumpLimitsVersion();
    } catch (error) {
      this.logger.warn(`limits changed, but the limits version could not be bumped (retrying): ${errorSummary(error)}`);
      this.retryBump(this.clock());
    }
  }

  /** Stops a pending bump retry (shutdown). */
  close(): void {
    if (this.retrying) clearInterval(this.retrying);
    this.retrying = undefined;
  }

  private retryBump(since: number): void {
    if (this.retrying) return; // one pending bump covers every change made before it lands
    this.retrying = setInterval(() => {
      if (this.clock() - since >= LIMIT_ROWS_TTL_MS) return this.close();
      this.store.bumpLimitsVersion().then(
        () => this.close(),
        () => undefined,
      );
    }, BUMP_RETRY_MS);
    this.retrying.unref();
  }

  private async tenant(tenantId: string, version: string): Promise<TenantLimitRow> {
    const cached = this.tenants.get(tenantId);
    if (cached && this.fresh(cached, version)) return cached.value;
    return this.shared(`t:${version}:${tenantId}`, async () => {
      const at = this.clock();
      const row = await this.tenantRows.findById(tenantId);
      if (!row) throw new TenantGoneError(tenantId);
      const value: TenantLimitRow = {
        id: row.id,
        billing: row.billing,
        dailyCostCapMicros: row.dailyCostCapMicros,
        monthlyCostCapMicros: row.monthlyCostCapMicros,
        dailyQueryQuota: row.dailyQueryQuota,
        maxConcurrentQueries: row.maxConcurrentQueries,
        requestsPerMinute: row.requestsPerMinute,
        requestBurst: row.requestBurst,
      };
      if (this.tenants.size >= MAX_ENTRIES) this.tenants.clear(); // forgetting costs reads only
      this.tenants.set(tenantId, { value, version, at });
      return value;
    });
  }

  private async platformCap(version: string): Promise<number | null> {
    if (this.platform && this.fresh(this.platform, version)) return this.platform.value;
    return this.shared(`p:${version}`, async () => {
      const at = this.clock();
      const { dailyCostCapMicros } = await this.platformRows.get();
      this.platform = { value: dailyCostCapMicros, version, at };
      return dailyCostCapMicros;
    });
  }

  private fresh(entry: Entry<unknown>, version: string): boolean {
    return version !== UNKNOWN && entry.version === version && this.clock() - entry.at < LIMIT_ROWS_TTL_MS;
  }

  /** Concurrent requests needing the same row under the same version share one read. */
  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    let pending = this.reads.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = read().finally(() => this.reads.delete(key));
      this.reads.set(key, pending);
    }
    return pending;
  }
}
