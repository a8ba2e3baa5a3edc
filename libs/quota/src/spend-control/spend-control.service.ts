import { Inject, Injectable, Logger } from '@nestjs/common';
import { LimitExceededError } from '@loci/common';
import type { LimitSettings } from '@loci/config';
import {
  errorSummary,
  isStoreUnavailable,
  loggableError,
  PlatformLimitsRepository,
  QuestionCountsRepository,
  SpendLedgerRepository,
  TenantRow,
  TenantsRepository,
} from '@loci/db';
import { limitKeys, nextMonthStartMs, nextUtcMidnightMs, secondsToNextMonthStart, secondsToNextUtcMidnight, utcDay, utcMonth } from '../limit-keys';
import { LIMIT_STORE, LimitStore, SpendScope } from '../limit-store';
import { LedgeredScope, LedgerMirror } from './ledger-mirror';
import { LimitRows, LimitRowsRead } from './limit-rows';
import { QuotaRecord } from './quota-record';
import { ServerClock } from './server-clock';
import {
  costCapExceeded,
  dailyQuotaExceeded,
  limitsUnavailable,
  monthlyCostCapExceeded,
  platformBudgetPaused,
  tooManyConcurrentQueries,
} from './spend-errors';

/**
 * How long a concurrency slot and a reservation live without renewal (LOCI_SLOT_LEASE_MS,
 * LOCI_RESERVATION_LEASE_MS): a crashed process's slot and reservation expire after them. A live
 * request renews both every third of the lease, so a lease survives one missed renewal (a store
 * blip).
 */
export type SpendLeases = Pick<LimitSettings, 'slotLeaseMs' | 'reservationLeaseMs'>;
const RENEWALS_PER_LEASE = 3;
// Counter keys outlive their window a little, so a late settle still finds them.
const WINDOW_MARGIN_MS = 60 * 60_000;

/** Who is asking: the client a concurrency slot belongs to (a user for JWT, a key for API keys). */
export interface LimitedClient {
  tenantId: string;
  clientKind: 'user' | 'key';
  clientId: string;
  requestId: string;
  /**
   * The tenant's row if this request already read it (an API key's principal carries the row
   * read with the key): admission then uses it instead of reading it again.
   */
  tenant?: TenantRow;
  /** An API key's own requests a minute (RequestRates), as read with the key; null: the tenant's rate alone. */
  keyRequestsPerMinute?: number | null;
}

/** An admitted request: release it (in a finally) to free its concurrency slot. */
export interface Permit {
  quota?: { limit: number; used: number; resetSeconds: number };
  release(): Promise<void>;
  /**
   * Gives the question's quota back: it ended without an answer from our model (it failed, or
   * there was nothing to answer from), and the quota counts only model-answered questions.
   * Once; a no-op when the request counted no quota.
   */
  refundQuota(): Promise<void>;
}

export interface Reservation {
  /** The store's time of the reservation, within the day whose counters it was charged to. */
  at: Date;
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
  private readonly quotaRecord: QuotaRecord;
  private readonly clock: ServerClock;
  /** How to end each slot and reservation still held by a running request (see endOutstanding). */
  private readonly outstanding = new Set<() => Promise<void>>();

  /** The tenants' and the platform's limit rows, cached (shared with RequestRates). */
  readonly rows: LimitRows;

  constructor(
    @Inject(LIMIT_STORE) private readonly store: LimitStore,
    tenants: TenantsRepository,
    platform: PlatformLimitsRepository,
    ledger: SpendLedgerRepository,
    private readonly leases: SpendLeases,
    questions: QuestionCountsRepository,
  ) {
    this.rows = new LimitRows(store, tenants, platform);
    this.mirror = new LedgerMirror(store, ledger);
    this.quotaRecord = new QuotaRecord(store, questions);
    this.clock = new ServerClock(store);
  }

  async admit(client: LimitedClient, options: { countsQuota: boolean }): Promise<Permit> {
    let rows = await this.rows.read(client.tenantId, client.tenant);
    return this.guarded(async () => {
      const slotKey = limitKeys.clientSlots(client.tenantId, client.clientKind, client.clientId);
      const leaseMs = this.leases.slotLeaseMs;
      // The day's count on record, once the store said its quota counter is not seeded.
      let quotaSeed: { key: string; count: number } | undefined;
      for (let attempt = 1; ; attempt++) {
        const { tenant } = rows;
        const slotLimit = tenant.maxConcurrentQueries;
        const quotaLimit = options.countsQuota ? tenant.dailyQueryQuota : null;
        const now = await this.clock.now();
        const scopes = this.scopes(rows, now);
        const quotaDay = utcDay(now);
        const quotaKey = limitKeys.tenantQuotaDay(tenant.id, quotaDay);
        // max(counter, ledger) and max(counter, record): each counter's known shortfall is taken
        // off its limit.
        const [shortfalls, quotaShortfall] = await Promise.all([
          this.mirror.shortfalls(scopes),
          quotaLimit === null ? 0 : this.quotaRecord.shortfall(tenant.id, quotaDay, quotaKey),
        ]);
        // Slot, caps and quota in one atomic step: a request refused by the concurrency limit
        // never counts against the quota, one refused by a cap or the quota holds no slot.
        const result = await this.store.admit({
          window: dayWindow(now),
          slot: slotLimit === null ? undefined : { key: slotKey, leaseId: client.requestId, limit: slotLimit, leaseMs },
          scopes: scopes.map((s, i) => ({ key: s.scope.key, capMicros: lessShortfall(s.scope.capMicros, shortfalls[i]) })),
          quota:
            quotaLimit === null
              ? undefined
              : {
                  key: quotaKey,
                  limit: Math.max(0, quotaLimit - quotaShortfall),
                  ttlMs: nextUtcMidnightMs(now) - now + WINDOW_MARGIN_MS,
                  seed: quotaSeed?.key === quotaKey ? quotaSeed.count : undefined,
                },
          limitsVersion: rows.version,
        });
        if (result.ok) {
          const counted = quotaLimit === null ? null : { tenantId: tenant.id, day: quotaDay, key: quotaKey };
          // On record before anything is answered: a Redis that loses its data is rebuilt from it.
          if (counted) await this.recordQuestion(counted, slotLimit === null ? null : slotKey, client.requestId);
          const quota =
            quotaLimit === null
              ? undefined
              : { limit: quotaLimit, used: (result.quotaCount ?? 0) + quotaShortfall, resetSeconds: secondsToNextUtcMidnight(now) };
          return this.permit(slotLimit === null ? null : slotKey, client.requestId, counted, quota);
        }
        if (result.reason === 'slot') throw tooManyConcurrentQueries(slotLimit!);
        if (result.reason === 'quota') throw dailyQuotaExceeded(quotaLimit!, secondsToNextUtcMidnight(now));
        if (result.reason === 'caps') {
          throw this.capsRefusal(
            result.full.map((f) => ({ scope: scopes[f.scopeIndex], committed: f.committedMicros + shortfalls[f.scopeIndex] })),
            now,
          );
        }
        if (attempt >= MAX_ATTEMPTS) throw new Error(`admission kept answering ${result.reason}`);
        if (result.reason === 'window') this.clock.correct(result.nowMs);
        else if (result.reason === 'limits') rows = await this.rowsAfterMove(result.version, client.tenantId, client.tenant);
        else {
          await Promise.all([
            this.mirror.seed(result.scopeIndexes.map((i) => scopes[i])),
            result.quota ? this.quotaRecord.count(tenant.id, quotaDay).then((count) => (quotaSeed = { key: quotaKey, count })) : undefined,
          ]);
          if (result.quota) this.quotaRecord.rebuilt(quotaKey);
        }
      }
    });
  }

  /**
   * Puts an admitted question on record. If that fails the question is not answered: the store's
   * count and the slot are given back (best effort; a count left behind refuses early, never
   * late) and the failure is the request's.
   */
  private async recordQuestion(counted: CountedQuestion, slotKey: string | null, leaseId: string): Promise<void> {
    try {
      await this.quotaRecord.add(counted.tenantId, counted.day);
    } catch (error) {
      await Promise.all([
        this.store.refundQuota(counted.key).catch(() => undefined),
        slotKey === null ? undefined : this.store.releaseSlot(slotKey, leaseId).catch(() => undefined),
      ]);
      throw error;
    }
  }

  /**
   * Reserves a model call's worst-case cost in every scope that applies, all or nothing; the
   * refusal names the scope that did not fit (the monthly one first when several are full).
   */
  async reserve(tenantId: string, reservationId: string, estimateMicros: number): Promise<Reservation> {
    let rows = await this.rows.read(tenantId);
    return this.guarded(async () => {
      const leaseMs = this.leases.reservationLeaseMs;
      for (let attempt = 1; ; attempt++) {
        const now = await this.clock.now();
        const scopes = this.scopes(rows, now);
        // max(counter, ledger): the store's atomic check is counter + shortfall + amount <= cap.
        const shortfalls = await this.mirror.shortfalls(scopes);
        const checked = scopes.map((s, i) => ({ ...s.scope, capMicros: lessShortfall(s.scope.capMicros, shortfalls[i]) }));
        // Guarded: the store checks the seeded marks and the day window in the same step.
        const result = await this.store.reserve(reservationId, checked, estimateMicros, leaseMs, { window: dayWindow(now), limitsVersion: rows.version });
        // The estimate named the day and the store confirmed its own clock is in it (the
        // guard), so the estimate dates the ledger row in the day the counters charged.
        if (result.ok) return this.reservation(reservationId, scopes, leaseMs, new Date(now), estimateMicros);
        if (!('retry' in result)) {
          // Scopes are ordered month, day, platform, so the first that did not fit is reported.
          throw this.refusal(scopes[result.scopeIndex], result.committedMicros + shortfalls[result.scopeIndex], now);
        }
        if (attempt >= MAX_ATTEMPTS) throw new Error(`reservation kept answering ${result.retry}`);
        if (result.retry === 'window') this.clock.correct(result.nowMs);
        else if (result.retry === 'limits') rows = await this.rowsAfterMove(result.version, tenantId);
        else await this.mirror.ensureSeeded(scopes);
      }
    });
  }

  /** An admitted request's permit: its slot renewed while it runs, released once. */
  private permit(slotKey: string | null, leaseId: string, counted: CountedQuestion | null, quota: Permit['quota']): Permit {
    const leaseMs = this.leases.slotLeaseMs;
    // A request longer than the lease keeps its slot by renewing it.
    const renew =
      slotKey === null
        ? undefined
        : setInterval(() => void this.store.renewSlot(slotKey, leaseId, leaseMs).catch(() => undefined), leaseMs / RENEWALS_PER_LEASE);
    renew?.unref();
    let released = false;
    let refunded = false;
    const release = async () => {
      if (released) return;
      released = true;
      this.outstanding.delete(release);
      if (renew) clearInterval(renew);
      if (slotKey !== null) await this.store.releaseSlot(slotKey, leaseId).catch(() => undefined);
    };
    this.outstanding.add(release);
    return {
      quota,
      release,
      refundQuota: async () => {
        if (refunded || counted === null) return;
        refunded = true;
        if (quota) quota.used = Math.max(0, quota.used - 1);
        // The record first: if the store's refund is then lost, the store counts one more than
        // the record (refuses early), never fewer.
        await this.quotaRecord.giveBack(counted.tenantId, counted.day).catch((error: unknown) => {
          this.logger.warn(`quota give-back on record for ${counted.key} failed: ${errorSummary(error)}`);
        });
        await this.store.refundQuota(counted.key).catch((error: unknown) => {
          this.logger.warn(`quota refund on ${counted.key} failed: ${errorSummary(error)}`);
        });
      },
    };
  }

  private reservation(reservationId: string, scopes: SpendControlScope[], leaseMs: number, at: Date, estimateMicros: number): Reservation {
    const settleScopes = scopes.map((s) => s.scope);
    // A call longer than the lease (queued behind LOCI_MODEL_CONCURRENCY, a slow provider)
    // keeps its reservation until settled; only a dead process's reservation expires. The
    // caller must settle on every path (ModelGateway does), or this renews until it exits.
    const renew = setInterval(() => {
      this.store
        .renewReservation(reservationId, leaseMs)
        .then((live) => {
          if (!live) clearInterval(renew); // expired (the process stalled past it) or settled
        })
        .catch(() => undefined); // the store is down: try again next time
    }, leaseMs / RENEWALS_PER_LEASE);
    renew.unref();
    // At shutdown a call still running is settled at its estimate, which its pending ledger row holds.
    const endAtEstimate = () => settle(estimateMicros);
    this.outstanding.add(endAtEstimate);
    const settle = async (actualMicros: number) => {
      this.outstanding.delete(endAtEstimate);
      clearInterval(renew);
      try {
        // Guarded: a settle into a counter the store just lost would recreate it with this
        // call's cost alone, and the rebuild (set-if-absent) would then be refused. So a lost
        // scope is rebuilt first; this call's pending row is then counted at its estimate and
        // its actual added too: an in-flight call at a flush may be counted twice (never
        // forgotten).
        for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
          if ((await this.store.settle(reservationId, settleScopes, actualMicros, {})) !== 'unseeded') return;
          await this.mirror.ensureSeeded(scopes);
        }
        throw new Error('the scopes kept being lost');
      } catch (error) {
        // The ledger row stays the truth; the counter is rebuilt from it if it drifted.
        this.logger.error(`settle ${reservationId} failed: ${errorSummary(error)}`);
      }
    };
    return { at, settle };
  }

  /**
   * Process shutdown, once requests had their grace (the limit store closes next): frees the
   * slots of requests still running and settles their model calls' reservations at the
   * estimate (their ledger rows stay pending at it, so counter and ledger agree), at once rather
   * than when their leases expire. Returns how many it ended.
   */
  async endOutstanding(): Promise<number> {
    const ends = [...this.outstanding];
    await Promise.all(ends.map((end) => end()));
    return ends.length;
  }

  /** Several caps used up: the tenant's monthly answer first (it lasts longer), then the day's. */
  private capsRefusal(full: Array<{ scope: SpendControlScope; committed: number }>, now: number): LimitExceededError {
    const order: ScopeKind[] = ['month', 'day', 'platform'];
    const first = [...full].sort((a, b) => order.indexOf(a.scope.kind) - order.indexOf(b.scope.kind))[0];
    return this.refusal(first.scope, first.committed, now);
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
  private scopes({ tenant, platformCapMicros }: LimitRowsRead, now: number): Array<SpendControlScope> {
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
    if (platformCapMicros !== undefined) {
      scopes.push({
        kind: 'platform',
        scope: { key: limitKeys.platformSpendDay(utcDay(now)), capMicros: platformCapMicros, ttlMs: nextUtcMidnightMs(now) - now + WINDOW_MARGIN_MS },
        source: { kind: 'platform-day', window: day },
      });
    }
    return scopes;
  }

  /**
   * The store's limits version moved past the rows': read them again under it, and send the retry
   * unguarded. The rows are then as new as this request (read, or cached by a read that began,
   * after the bump that made `version`), so every change committed before the request started is
   * in them, and a change the store's version shows since is one made while the request ran, which
   * may order either way. Checking the version again would let a burst of operators' changes (a
   * script updating many tenants) refuse a request after MAX_ATTEMPTS moves without making it any
   * more correct.
   */
  private async rowsAfterMove(version: string, tenantId: string, known?: TenantRow): Promise<LimitRowsRead> {
    this.rows.moved(version);
    return { ...(await this.rows.read(tenantId, known)), version: undefined };
  }

  /**
   * Operators changed a tenant's or the platform's limits, or a tenant's life (suspended,
   * resumed, deleted), and committed it: the next request on every instance reads the rows
   * again (LimitRows.changed). Call it after the commit, never before.
   */
  limitsChanged(): Promise<void> {
    return this.rows.changed();
  }

  /** Shutdown: no more bump retries. */
  close(): void {
    this.rows.close();
  }

  /**
   * A limit store that cannot answer means limits cannot be checked: refuse (503), never spend
   * blind. The work also reads the database (the tenant, the ledger); when that is what failed,
   * the fault is the store's and says so (503 store_unavailable), not Redis's.
   */
  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof LimitExceededError || isStoreUnavailable(error)) throw error;
      this.logger.error({ err: loggableError(error) }, `limit store unavailable: ${errorSummary(error)}`);
      throw limitsUnavailable();
    }
  }
}

type ScopeKind = 'day' | 'month' | 'platform';
/** A question counted against the daily quota: its tenant, the store's day it was counted in, and its counter. */
interface CountedQuestion {
  tenantId: string;
  day: string;
  key: string;
}
type SpendControlScope = LedgeredScope & { kind: ScopeKind };

const DAY_MS = 86_400_000;
// A limits-version, window or seeded-mark retry happens at most once each in practice (a limit
// change or a cold cache, midnight, a flush: spend scopes and the quota are seeded in one retry);
// more is a fault.
const MAX_ATTEMPTS = 4;

/** The UTC day containing `now`, the window the day's and month's keys are named for. */
function dayWindow(now: number): { fromMs: number; toMs: number } {
  const fromMs = Math.floor(now / DAY_MS) * DAY_MS;
  return { fromMs, toMs: fromMs + DAY_MS };
}

const lessShortfall = (cap: number | null, shortfall: number) => (cap === null ? null : Math.max(0, cap - shortfall));

function monthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}
