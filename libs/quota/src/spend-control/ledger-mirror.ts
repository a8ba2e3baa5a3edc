import { Logger } from '@nestjs/common';
import { errorSummary, SpendLedgerRepository, SpendWindow } from '@loci/db';
import { LimitStore, SpendScope } from '../limit-store';

/** Where a spend scope's truth is in the inference ledger. */
export type LedgerSource =
  | { kind: 'tenant-day' | 'tenant-month'; tenantId: string; day: SpendWindow; month: SpendWindow }
  | { kind: 'platform-day'; window: SpendWindow };

export interface LedgeredScope {
  scope: SpendScope;
  source: LedgerSource;
}

/**
 * How long a ledger-vs-counter comparison is trusted (per scope, per process). The trade-off:
 * enforcement must use the larger of counter and ledger, but a ledger read per model call would
 * put a SUM over a tenant's month (or the platform's whole day) in front of every call. So the
 * *shortfall* of the counter (ledger - counter, at least 0) is measured at most once per this
 * period and per capped scope, and taken off the cap the store checks atomically. Spend the
 * counter lost (a failover that dropped writes, a counter rebuilt partially) is therefore
 * enforced within this period; an older shortfall that has meanwhile been repaired keeps the cap
 * tighter than needed for at most this period (fails safe: may refuse, never overspends).
 */
export const LEDGER_CHECK_TTL_MS = 5_000;

/**
 * Keeps the limit store's spend counters a cache of the inference ledger (docs/decisions/0045-spend-control.md,
 * "Spend control"):
 *
 * - **Rebuild.** Before a scope is checked or charged, the store is asked whether its counter
 *   was seeded for the window (`seeded`, one round trip for all scopes). Not seeded means the
 *   window's counter was never built in this store or the store lost it (Redis flushed or
 *   restarted, the in-process store restarted): the counter is then set from the ledger with
 *   `seedCommitted` (set-if-absent: several instances may race, the first wins, none adds; the
 *   seeded mark is set in the same atomic step). Because every reservation and settlement
 *   passes here first, a counter is always seeded before anything is added to it in a window, so
 *   a later seed can never overwrite live counting. The mark is read on every call rather than
 *   cached: a cached "seeded" would let a settle right after
 *   a flush recreate the counter with only its own amount, and the seed (NX) would then be
 *   refused and the day's spend forgotten. The ledger is read only when the scope is not seeded:
 *   once per scope per window per process, concurrent callers sharing the read.
 * - **Enforcement.** `shortfalls` (see LEDGER_CHECK_TTL_MS) for max(counter, ledger).
 */
export class LedgerMirror {
  private readonly logger = new Logger('SpendControl');
  private readonly reads = new Map<string, Promise<Spent>>();
  private readonly checked = new Map<string, { shortfall: number; at: number }>();
  private readonly checking = new Map<string, Promise<number>>();

  constructor(
    private readonly store: LimitStore,
    private readonly ledger: SpendLedgerRepository,
    private readonly clock: () => number = Date.now, // the cache's clock only, never a window's
  ) {}

  async ensureSeeded(scopes: LedgeredScope[]): Promise<void> {
    const seeded = await this.store.seeded(scopes.map((s) => s.scope.key));
    await this.seed(scopes.filter((_, i) => !seeded[i]));
  }

  /** Builds these scopes' counters from the ledger (set-if-absent), and marks them seeded. */
  async seed(scopes: LedgeredScope[]): Promise<void> {
    await Promise.all(
      scopes.map(async (s) => {
        const spent = await this.read(s.source);
        await this.store.seedCommitted(s.scope, spent);
        this.checked.delete(s.scope.key); // measured against the lost counter, if at all
        this.logger.log(`spend counter ${s.scope.key} built from the ledger (${spent} µ$ unless another instance was first)`);
      }),
    );
  }

  /**
   * How much the counter of each scope is short of the ledger (0 when it is not), measured at
   * most every LEDGER_CHECK_TTL_MS. Only capped scopes are measured (nothing to enforce
   * otherwise). If the ledger cannot be read the last measure (or 0) is used: the counter still
   * enforces on its own.
   */
  async shortfalls(scopes: LedgeredScope[]): Promise<number[]> {
    return Promise.all(scopes.map((s) => (s.scope.capMicros === null ? Promise.resolve(0) : this.shortfall(s))));
  }

  private async shortfall(s: LedgeredScope): Promise<number> {
    const key = s.scope.key;
    const cached = this.checked.get(key);
    if (cached && this.clock() - cached.at < LEDGER_CHECK_TTL_MS) return cached.shortfall;
    let pending = this.checking.get(key);
    if (!pending) {
      pending = (async () => {
        try {
          // Ledger first, counter after: a call reserved in between raises the counter only, so
          // the measure errs towards a smaller shortfall, never counts one call twice.
          const ledger = await this.read(s.source);
          const [counter, [seeded]] = await Promise.all([this.store.committed(key), this.store.seeded([key])]);
          // A counter not (yet) rebuilt says nothing: the store refuses to count into it until
          // it is seeded, and a shortfall measured against it would count the ledger twice.
          if (!seeded) return 0;
          const shortfall = Math.max(0, ledger - counter);
          if (shortfall > 0) this.logger.warn(`spend counter ${key} is ${shortfall} µ$ below the ledger; enforcing the ledger`);
          this.remember(key, shortfall);
          return shortfall;
        } catch (error) {
          this.logger.warn(`ledger check of ${key} failed: ${errorSummary(error)}`);
          return cached?.shortfall ?? 0;
        } finally {
          this.checking.delete(key);
        }
      })();
      this.checking.set(key, pending);
    }
    return pending;
  }

  /** One ledger read per source at a time; a tenant's day and month come from one statement. */
  private async read(source: LedgerSource): Promise<number> {
    const id =
      source.kind === 'platform-day' ? `p:${source.window.from.toISOString()}` : `t:${source.tenantId}:${source.day.from.toISOString()}`;
    let read = this.reads.get(id);
    if (!read) {
      read = (async (): Promise<Spent> => {
        try {
          if (source.kind === 'platform-day') return { platform: await this.ledger.platformSpend(source.window) };
          const { dayMicros, monthMicros } = await this.ledger.tenantSpend(source.tenantId, source.day, source.month);
          return { day: dayMicros, month: monthMicros };
        } finally {
          this.reads.delete(id);
        }
      })();
      this.reads.set(id, read);
    }
    const spent = await read;
    if (source.kind === 'platform-day') return spent.platform ?? 0;
    return (source.kind === 'tenant-day' ? spent.day : spent.month) ?? 0;
  }

  private remember(key: string, shortfall: number): void {
    const now = this.clock();
    if (this.checked.size > 10_000) {
      for (const [k, v] of this.checked) if (now - v.at >= LEDGER_CHECK_TTL_MS) this.checked.delete(k);
    }
    this.checked.set(key, { shortfall, at: now });
  }
}

interface Spent {
  day?: number;
  month?: number;
  platform?: number;
}

