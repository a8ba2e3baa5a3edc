import { Inject, Injectable, Logger } from '@nestjs/common';
import { LimitExceededError } from '@loci/common';
import { PlatformLimitsRepository, SpendLedgerRepository, TenantRow, TenantsRepository } from '@loci/db';
import { limitKeys, nextMonthStartMs, nextUtcMidnightMs, secondsToNextMonthStart, secondsToNextUtcMidnight, utcDay, utcMonth } from '../limit-keys';
import { LIMIT_STORE, LimitStore, SpendScope } from '../limit-store';
import { LedgeredScope, LedgerMirror } from './ledger-mirror';
import {
  costCapExceeded,
  dailyQuotaExceeded,
  limitsUnavailable,
  monthlyCostCapExceeded,
  platformBudgetPaused,
  tooManyConcurrentQueries,
} from './spend-errors';

/** How long a concurrency slot or a reservation lives without renewal (a crashed process's expire). */
export const SLOT_LEASE_MS = 60_000;
export const RESERVATION_LEASE_MS = 10 * 60_000;
// Counter keys outlive their window a little, so a late settle still finds them.
const WINDOW_MARGIN_MS = 60 * 60_000;

/** Who is asking: the client a concurrency slot belongs to (a user for JWT, a key for API keys). */
export interface LimitedClient {
  tenantId: string;
  clientKind: 'user' | 'key';
  clientId: string;
  requestId: string;
}

/** An admitted request: release it (in a finally) to free its concurrency slot. */
export interface Permit {
  quota?: { limit: number; used: number; resetSeconds: number };
  release(): Promise<void>;
}

export interface Reservation {
  settle(actualMicros: number): Promise<void>;
}

/**
 * Spend control: admission (concurrency slot, then cost caps, then the daily quota) and a
 * worst-case reservation before every model call, settled to the actual cost after it. A
 * request refused by concurrency never counts against the quota; one refused by a cap never
 * holds a slot. All counting happens in the limit store (Redis, or in-process), whose spend
 * counters are a cache of the inference ledger: rebuilt from it when the store lost them, and
 * enforced at the larger of counter and ledger (LedgerMirror).
 */
@Injectable()
export class SpendControl {
  private readonly logger = new Logger('SpendControl');
  private readonly mirror: LedgerMirror;

  constructor(
    @Inject(LIMIT_STORE) private readonly store: LimitStore,
    private readonly tenants: TenantsRepository,
    private readonly platform: PlatformLimitsRepository,
    ledger: SpendLedgerRepository,
  ) {
    this.mirror = new LedgerMirror(store, ledger);
  }

  async admit(client: LimitedClient, options: { countsQuota: boolean }): Promise<Permit> {
    const tenant = await this.tenant(client.tenantId);
    return this.guarded(async () => {
      const now = await this.store.now();
      const slotKey = limitKeys.clientSlots(tenant.id, client.clientKind, client.clientId);
      const slotLimit = tenant.maxConcurrentQueries;
      let renew: NodeJS.Timeout | undefined;
      if (slotLimit !== null) {
        const slot = await this.store.acquireSlot(slotKey, client.requestId, slotLimit, SLOT_LEASE_MS);
        if (!slot.ok) throw tooManyConcurrentQueries(slotLimit);
        // A request longer than the lease keeps its slot by renewing it.
        renew = setInterval(() => void this.store.renewSlot(slotKey, client.requestId, SLOT_LEASE_MS).catch(() => undefined), SLOT_LEASE_MS / 3);
        renew.unref();
      }
      let released = false;
      const release = async () => {
        if (released) return;
        released = true;
        if (renew) clearInterval(renew);
        if (slotLimit !== null) await this.store.releaseSlot(slotKey, client.requestId).catch(() => undefined);
      };
      try {
        await this.assertCapsOpen(tenant, now);
        let quota: Permit['quota'];
        if (options.countsQuota && tenant.dailyQueryQuota !== null) {
          const consumed = await this.store.consumeQuota(
            limitKeys.tenantQuotaDay(tenant.id, utcDay(now)),
            tenant.dailyQueryQuota,
            nextUtcMidnightMs(now) - now + WINDOW_MARGIN_MS,
          );
          const resetSeconds = secondsToNextUtcMidnight(now);
          if (!consumed.ok) throw dailyQuotaExceeded(tenant.dailyQueryQuota, resetSeconds);
          quota = { limit: tenant.dailyQueryQuota, used: consumed.count, resetSeconds };
        }
        return { quota, release };
      } catch (error) {
        await release();
        throw error;
      }
    });
  }

  /**
   * Reserves a model call's worst-case cost in every scope that applies, all or nothing; the
   * refusal names the scope that did not fit (the monthly one first when several are full).
   */
  async reserve(tenantId: string, reservationId: string, estimateMicros: number): Promise<Reservation> {
    const tenant = await this.tenant(tenantId);
    return this.guarded(async () => {
      const now = await this.store.now();
      const scopes = await this.scopes(tenant, now);
      await this.mirror.ensureSeeded(scopes);
      // max(counter, ledger): the counter's known shortfall is taken off each cap, so the
      // store's atomic check is counter + shortfall + amount <= cap.
      const shortfalls = await this.mirror.shortfalls(scopes);
      const checked = scopes.map((s, i) =>
        s.scope.capMicros === null ? s.scope : { ...s.scope, capMicros: Math.max(0, s.scope.capMicros - shortfalls[i]) },
      );
      const result = await this.store.reserve(reservationId, checked, estimateMicros, RESERVATION_LEASE_MS);
      // Scopes are ordered month, day, platform, so when several are full the most lasting
      // refusal is the one reported.
      if (!result.ok) throw this.refusal(scopes[result.scopeIndex], result.committedMicros + shortfalls[result.scopeIndex], now);
      const settleScopes = scopes.map((s) => s.scope);
      return {
        settle: (actualMicros: number) =>
          // Seeded first: a settle into a counter the store just lost would recreate it with
          // this call's cost alone, and the rebuild (set-if-absent) would then be refused.
          // After a rebuild this call's pending row was counted at its estimate and its actual
          // is added too: an in-flight call at a flush may be counted twice (never forgotten).
          this.mirror
            .ensureSeeded(scopes)
            .then(() => this.store.settle(reservationId, settleScopes, actualMicros))
            .catch((error: unknown) => {
              // The ledger row stays the truth; the counter is rebuilt from it if it drifted.
              this.logger.error(`settle ${reservationId} failed: ${error instanceof Error ? error.message : error}`);
            }),
      };
    });
  }

  private async assertCapsOpen(tenant: TenantRow, now: number): Promise<void> {
    const scopes = await this.scopes(tenant, now);
    await this.mirror.ensureSeeded(scopes);
    const shortfalls = await this.mirror.shortfalls(scopes);
    const full: Array<{ kind: ScopeKind; committed: number; cap: number }> = [];
    for (const [i, s] of scopes.entries()) {
      if (s.scope.capMicros === null) continue;
      const committed = (await this.store.committed(s.scope.key)) + shortfalls[i];
      if (committed >= s.scope.capMicros) full.push({ kind: s.kind, committed, cap: s.scope.capMicros });
    }
    if (full.length === 0) return;
    // Both of the tenant's caps used up → the monthly answer (it lasts longer).
    const month = full.find((f) => f.kind === 'month');
    if (month) throw monthlyCostCapExceeded(month.cap, month.committed, secondsToNextMonthStart(now));
    const day = full.find((f) => f.kind === 'day');
    if (day) throw costCapExceeded(day.cap, day.committed, secondsToNextUtcMidnight(now));
    throw platformBudgetPaused(secondsToNextUtcMidnight(now));
  }

  private refusal(scope: { kind: ScopeKind; scope: SpendScope }, committed: number, now: number): LimitExceededError {
    switch (scope.kind) {
      case 'month':
        return monthlyCostCapExceeded(scope.scope.capMicros!, committed, secondsToNextMonthStart(now));
      case 'day':
        return costCapExceeded(scope.scope.capMicros!, committed, secondsToNextUtcMidnight(now));
      case 'platform':
        return platformBudgetPaused(secondsToNextUtcMidnight(now));
    }
  }

  /**
   * Tenant month and day always (counted even when unlimited), then the platform day for
   * platform-billed tenants; in that order (see reserve).
   */
  private async scopes(tenant: TenantRow, now: number): Promise<Array<SpendControlScope>> {
    const day = { from: new Date(nextUtcMidnightMs(now) - DAY_MS), to: new Date(nextUtcMidnightMs(now)) };
    const month = { from: new Date(monthStartMs(now)), to: new Date(nextMonthStartMs(now)) };
    const scopes: Array<SpendControlScope> = [
      {
        kind: 'month',
        scope: {
          key: limitKeys.tenantSpendMonth(tenant.id, utcMonth(now)),
          capMicros: tenant.monthlyCostCapMicros,
          ttlMs: nextMonthStartMs(now) - now + WINDOW_MARGIN_MS,
        },
        source: { kind: 'tenant-month', tenantId: tenant.id, day, month },
      },
      {
        kind: 'day',
        scope: {
          key: limitKeys.tenantSpendDay(tenant.id, utcDay(now)),
          capMicros: tenant.dailyCostCapMicros,
          ttlMs: nextUtcMidnightMs(now) - now + WINDOW_MARGIN_MS,
        },
        source: { kind: 'tenant-day', tenantId: tenant.id, day, month },
      },
    ];
    if (tenant.billing === 'platform') {
      const { dailyCostCapMicros } = await this.platform.get();
      scopes.push({
        kind: 'platform',
        scope: { key: limitKeys.platformSpendDay(utcDay(now)), capMicros: dailyCostCapMicros, ttlMs: nextUtcMidnightMs(now) - now + WINDOW_MARGIN_MS },
        source: { kind: 'platform-day', window: day },
      });
    }
    return scopes;
  }

  private async tenant(tenantId: string): Promise<TenantRow> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new Error(`tenant ${tenantId} vanished`);
    return tenant;
  }

  /** A limit store that cannot answer means limits cannot be checked: refuse (503), never spend blind. */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof LimitExceededError) throw error;
      this.logger.error(`limit store unavailable: ${error instanceof Error ? error.message : error}`);
      throw limitsUnavailable();
    }
  }
}

type ScopeKind = 'day' | 'month' | 'platform';
type SpendControlScope = LedgeredScope & { kind: ScopeKind };

const DAY_MS = 86_400_000;

function monthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
