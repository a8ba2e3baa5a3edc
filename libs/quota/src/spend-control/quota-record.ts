import { Logger } from '@nestjs/common';
import { errorSummary, QuestionCountsRepository } from '@loci/db';
import { LimitStore } from '../limit-store';
import { LEDGER_CHECK_TTL_MS } from './ledger-mirror';

/**
 * Keeps the limit store's daily question quota counters a cache of the count on record in
 * PostgreSQL (`question_counts`), as LedgerMirror keeps the spend counters a cache of the ledger
 * (docs/decisions/0049-daily-quota-on-record.md, "The daily question quota survives Redis losing its data"):
 *
 * - **On record.** A question the store counted is added to the record right after admission,
 *   and given back there before it is given back in the store, so the record never holds less
 *   than the store for long: a process that dies between the two steps leaves the store one
 *   higher (a question it never answered, counted until the day ends, as before).
 * - **Rebuild.** The store answers `unseeded` for a day's quota counter it never built or lost
 *   (a flush, a restart, the in-process store's first question); the record's count is then
 *   passed to the next admission, which sets it if absent and marks it seeded in the same
 *   atomic step, before counting: concurrent seeders cannot add to each other.
 * - **Enforcement.** At max(counter, record): the counter's shortfall against the record (a
 *   question admitted in the old Redis whose record was written after the rebuild read it, writes
 *   a failover lost) is measured at most every LEDGER_CHECK_TTL_MS per tenant and day and taken
 *   off the limit the store checks.
 */
export class QuotaRecord {
  private readonly logger = new Logger('SpendControl');
  private readonly reads = new Map<string, Promise<number>>();
  private readonly checked = new Map<string, { shortfall: number; at: number }>();
  private readonly checking = new Map<string, Promise<number>>();

  constructor(
    private readonly store: LimitStore,
    private readonly questions: QuestionCountsRepository,
    private readonly clock: () => number = Date.now, // the cache's clock only, never a window's
  ) {}

  /** The day's count on record, to seed the store's counter with; one read at a time per tenant and day. */
  async count(tenantId: string, day: string): Promise<number> {
    const id = `${tenantId}:${day}`;
    let read = this.reads.get(id);
    if (!read) {
      read = this.questions.count(tenantId, day).finally(() => this.reads.delete(id));
      this.reads.set(id, read);
    }
    const count = await read;
    this.logger.log(`quota counter of tenant ${tenantId} for ${day} built from the record (${count} unless another instance was first)`);
    return count;
  }

  /** The question the store just counted, on record. */
  add(tenantId: string, day: string): Promise<void> {
    return this.questions.add(tenantId, day);
  }

  /** A question given back, on record (before the store gives it back). */
  giveBack(tenantId: string, day: string): Promise<void> {
    return this.questions.giveBack(tenantId, day);
  }

  /**
   * How many questions the store's counter is short of the record (0 when it is not, or when the
   * counter is not seeded: the store then refuses to count into it until it is rebuilt from the
   * record, and a shortfall measured against it would count the record twice). If the record
   * cannot be read the last measure (or 0) is used: the counter still enforces on its own.
   */
  async shortfall(tenantId: string, day: string, quotaKey: string): Promise<number> {
    const cached = this.checked.get(quotaKey);
    if (cached && this.clock() - cached.at < LEDGER_CHECK_TTL_MS) return cached.shortfall;
    let pending = this.checking.get(quotaKey);
    if (!pending) {
      pending = (async () => {
        try {
          // Record first, counter after: a question admitted in between raises the counter only,
          // so the measure errs towards a smaller shortfall.
          const recorded = await this.questions.count(tenantId, day);
          const [counter, [seeded]] = await Promise.all([this.store.quotaCount(quotaKey), this.store.seeded([quotaKey])]);
          const shortfall = seeded ? Math.max(0, recorded - counter) : 0;
          if (shortfall > 0) this.logger.warn(`quota counter ${quotaKey} is ${shortfall} below the record; enforcing the record`);
          this.remember(quotaKey, shortfall);
          return shortfall;
        } catch (error) {
          this.logger.warn(`quota record check of ${quotaKey} failed: ${errorSummary(error)}`);
          return cached?.shortfall ?? 0;
        } finally {
          this.checking.delete(quotaKey);
        }
      })();
      this.checking.set(quotaKey, pending);
    }
    return pending;
  }

  /** The counter was just rebuilt: a shortfall measured against the lost one no longer holds. */
  rebuilt(quotaKey: string): void {
    this.checked.delete(quotaKey);
  }

  private remember(key: string, shortfall: number): void {
    const now = this.clock();
    if (this.checked.size > 10_000) {
      for (const [k, v] of this.checked) if (now - v.at >= LEDGER_CHECK_TTL_MS) this.checked.delete(k);
    }
    this.checked.set(key, { shortfall, at: now });
  }
}
