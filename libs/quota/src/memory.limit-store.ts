import { AttemptCounter } from './attempts/attempt-counter';
import { MemoryAttemptCounter } from './attempts/memory.attempt-counter';
import { MemoryRateLimiter } from './rates/memory.rate-limiter';
import {
  AdmissionRequest,
  AdmissionResult,
  assertAdmission,
  assertId,
  assertLimit,
  assertMicros,
  assertPositiveMs,
  assertScopes,
  Guard,
  LimitStore,
  ReserveResult,
  SettleResult,
  SpendScope,
} from './limit-store';
import { limitKeys } from './limit-keys';
import { MemoryWriteNotes } from './write-notes/memory.write-notes';

interface Counter {
  value: number;
  expiresAt: number;
}

interface Held {
  amount: number;
  expiresAt: number;
}

interface ReservationRecord {
  expiresAt: number;
  keys: string[];
}

/**
 * The in-process limit store (embedded default; one process only). Every method does its whole
 * read-check-write without an await, so no other call can interleave: that is its atomicity.
 * It mirrors the Redis scripts step for step, including "expired at expiresAt <= now".
 */
export class MemoryLimitStore implements LimitStore {
  readonly kind = 'memory' as const;
  private readonly counters = new Map<string, Counter>(); // settled spend and quota counts
  private readonly held = new Map<string, Map<string, Held>>(); // scope key → reservation id → amount
  private readonly records = new Map<string, ReservationRecord>();
  private readonly settledIds = new Map<string, number>(); // id → remembered until
  private readonly slots = new Map<string, Map<string, number>>(); // key → lease id → expiry
  private readonly seededUntil = new Map<string, number>(); // scope or quota key → seeded for its window until

  /** See LimitStore.bumpLimitsVersion; started from the clock, as Redis starts a lost one. */
  private limitsVersion: number;

  constructor(private readonly clock: () => number = Date.now) {
    this.limitsVersion = this.clock() * 1000;
  }

  readonly attempts: AttemptCounter = new MemoryAttemptCounter(() => this.clock());
  readonly rates = new MemoryRateLimiter(() => this.clock());
  readonly writeNotes = new MemoryWriteNotes(() => this.clock());

  async now(): Promise<number> {
    return this.clock();
  }

  async reserve(reservationId: string, scopes: SpendScope[], amountMicros: number, leaseMs: number, guard?: Guard): Promise<ReserveResult> {
    assertId('reservationId', reservationId);
    assertScopes(scopes);
    assertMicros('amountMicros', amountMicros);
    assertPositiveMs('leaseMs', leaseMs);
    const now = this.clock();
    if (guard?.limitsVersion !== undefined && guard.limitsVersion !== String(this.limitsVersion)) {
      return { ok: false, retry: 'limits', version: String(this.limitsVersion) };
    }
    if (guard) {
      if (guard.window && (now < guard.window.fromMs || now >= guard.window.toMs)) return { ok: false, retry: 'window', nowMs: now };
      if (!this.allSeeded(scopes, now)) return { ok: false, retry: 'unseeded' };
    }
    for (const scope of scopes) this.sweep(scope.key, now);

    const record = this.records.get(reservationId);
    if ((record && record.expiresAt > now) || this.isSettled(reservationId, now)) {
      return { ok: true, committedMicros: scopes.map((s) => this.committedAt(s.key)) };
    }
    this.records.delete(reservationId); // an expired record: its amounts were swept above

    for (let i = 0; i < scopes.length; i++) {
      const cap = scopes[i].capMicros;
      const committed = this.committedAt(scopes[i].key);
      if (cap !== null && committed + amountMicros > cap) {
        return { ok: false, scopeIndex: i, committedMicros: committed, capMicros: cap };
      }
    }

    const expiresAt = now + leaseMs;
    for (const scope of scopes) {
      let held = this.held.get(scope.key);
      if (!held) this.held.set(scope.key, (held = new Map()));
      held.set(reservationId, { amount: amountMicros, expiresAt });
    }
    this.records.set(reservationId, { expiresAt, keys: scopes.map((s) => s.key) });
    return { ok: true, committedMicros: scopes.map((s) => this.committedAt(s.key)) };
  }

  async settle(reservationId: string, scopes: SpendScope[], actualMicros: number, guard?: Guard): Promise<SettleResult> {
    assertId('reservationId', reservationId);
    assertScopes(scopes);
    assertMicros('actualMicros', actualMicros);
    const now = this.clock();
    if (this.isSettled(reservationId, now)) return 'already_settled';
    if (guard && !this.allSeeded(scopes, now)) return 'unseeded';
    for (const scope of scopes) {
      const held = this.held.get(scope.key);
      held?.delete(reservationId); // expired-but-unswept or live: either way its amount goes
      if (held?.size === 0) this.held.delete(scope.key);
      this.incr(scope.key, actualMicros, scope.ttlMs, now);
    }
    this.records.delete(reservationId);
    this.settledIds.set(reservationId, now + Math.max(...scopes.map((s) => s.ttlMs)));
    return 'settled';
  }

  private allSeeded(scopes: Array<{ key: string }>, now: number): boolean {
    return scopes.every((scope) => (this.seededUntil.get(scope.key) ?? 0) > now);
  }

  async renewReservation(reservationId: string, leaseMs: number): Promise<boolean> {
    assertId('reservationId', reservationId);
    assertPositiveMs('leaseMs', leaseMs);
    const now = this.clock();
    const record = this.records.get(reservationId);
    if (!record || record.expiresAt <= now) return false;
    record.expiresAt = now + leaseMs;
    for (const key of record.keys) {
      const held = this.held.get(key)?.get(reservationId);
      if (held) held.expiresAt = record.expiresAt;
    }
    return true;
  }

  async committed(scopeKey: string): Promise<number> {
    this.sweep(scopeKey, this.clock());
    return this.committedAt(scopeKey);
  }

  async seedCommitted(scope: SpendScope, settledMicros: number): Promise<void> {
    assertScopes([scope]);
    assertMicros('settledMicros', settledMicros);
    const now = this.clock();
    if (!this.counter(scope.key, now)) this.counters.set(scope.key, { value: settledMicros, expiresAt: now + scope.ttlMs });
    this.seededUntil.set(scope.key, now + scope.ttlMs);
  }

  async seeded(scopeKeys: string[]): Promise<boolean[]> {
    const now = this.clock();
    return scopeKeys.map((key) => {
      const until = this.seededUntil.get(key);
      if (until !== undefined && until <= now) this.seededUntil.delete(key);
      return until !== undefined && until > now;
    });
  }

  async acquireSlot(key: string, leaseId: string, limit: number, leaseMs: number): Promise<{ ok: boolean; active: number }> {
    assertId('leaseId', leaseId);
    assertPositiveMs('leaseMs', leaseMs);
    assertLimit(limit);
    const now = this.clock();
    const leases = this.liveSlots(key, now);
    if (leases.has(leaseId) || leases.size < limit) {
      leases.set(leaseId, now + leaseMs);
      this.slots.set(key, leases);
      return { ok: true, active: leases.size };
    }
    return { ok: false, active: leases.size };
  }

  async renewSlot(key: string, leaseId: string, leaseMs: number): Promise<boolean> {
    assertPositiveMs('leaseMs', leaseMs);
    const now = this.clock();
    const leases = this.liveSlots(key, now);
    if (!leases.has(leaseId)) return false;
    leases.set(leaseId, now + leaseMs);
    return true;
  }

  async releaseSlot(key: string, leaseId: string): Promise<boolean> {
    const now = this.clock();
    const leases = this.slots.get(key);
    const expiresAt = leases?.get(leaseId);
    if (expiresAt === undefined) return false;
    leases!.delete(leaseId);
    if (leases!.size === 0) this.slots.delete(key);
    return expiresAt > now;
  }

  async consumeQuota(key: string, limit: number, ttlMs: number): Promise<{ ok: boolean; count: number }> {
    assertLimit(limit);
    assertPositiveMs('ttlMs', ttlMs);
    const now = this.clock();
    const count = this.counter(key, now)?.value ?? 0;
    if (count >= limit) return { ok: false, count };
    return { ok: true, count: this.incr(key, 1, ttlMs, now) };
  }

  async quotaCount(key: string): Promise<number> {
    return this.counter(key, this.clock())?.value ?? 0;
  }

  async refundQuota(key: string): Promise<void> {
    const counter = this.counter(key, this.clock());
    if (counter && counter.value > 0) counter.value -= 1;
  }

  async admit(request: AdmissionRequest): Promise<AdmissionResult> {
    assertAdmission(request);
    const now = this.clock();
    if (request.limitsVersion !== undefined && request.limitsVersion !== String(this.limitsVersion)) {
      return { ok: false, reason: 'limits', version: String(this.limitsVersion) };
    }
    if (now < request.window.fromMs || now >= request.window.toMs) return { ok: false, reason: 'window', nowMs: now };
    const unseeded = request.scopes.flatMap((scope, i) => ((this.seededUntil.get(scope.key) ?? 0) > now ? [] : [i]));
    const { slot, quota } = request;
    let quotaUnseeded = false;
    if (quota && (this.seededUntil.get(quota.key) ?? 0) <= now) {
      // As the script: the count on record set if the counter is absent, and marked seeded.
      if (quota.seed === undefined) quotaUnseeded = true;
      else {
        if (!this.counter(quota.key, now)) this.counters.set(quota.key, { value: quota.seed, expiresAt: now + quota.ttlMs });
        this.seededUntil.set(quota.key, now + quota.ttlMs);
      }
    }
    if (unseeded.length > 0 || quotaUnseeded) {
      return { ok: false, reason: 'unseeded', scopeIndexes: unseeded, ...(quotaUnseeded ? { quota: true as const } : {}) };
    }
    const leases = slot ? this.liveSlots(slot.key, now) : undefined;
    if (slot && leases && !leases.has(slot.leaseId) && leases.size >= slot.limit) return { ok: false, reason: 'slot', active: leases.size };
    const full: Array<{ scopeIndex: number; committedMicros: number }> = [];
    request.scopes.forEach((scope, scopeIndex) => {
      if (scope.capMicros === null) return;
      this.sweep(scope.key, now);
      const committedMicros = this.committedAt(scope.key);
      if (committedMicros >= scope.capMicros) full.push({ scopeIndex, committedMicros });
    });
    if (full.length > 0) return { ok: false, reason: 'caps', full };
    let quotaCount: number | null = null;
    if (quota) {
      const count = this.counter(quota.key, now)?.value ?? 0;
      if (count >= quota.limit) return { ok: false, reason: 'quota', count };
      quotaCount = this.incr(quota.key, 1, quota.ttlMs, now);
    }
    let slotsActive: number | null = null;
    if (slot && leases) {
      leases.set(slot.leaseId, now + slot.leaseMs);
      this.slots.set(slot.key, leases);
      slotsActive = leases.size;
    }
    return { ok: true, slotsActive, quotaCount };
  }

  async forgetTenant(tenantId: string): Promise<number> {
    const prefix = limitKeys.tenantPrefix(tenantId);
    let removed = 0;
    for (const map of [this.counters, this.held, this.slots, this.seededUntil] as Map<string, unknown>[]) {
      for (const key of map.keys()) {
        if (key.startsWith(prefix)) {
          map.delete(key);
          removed++;
        }
      }
    }
    return removed + this.rates.forget(prefix) + this.writeNotes.forget(prefix);
  }

  async bumpLimitsVersion(): Promise<string> {
    return String(++this.limitsVersion);
  }

  async close(): Promise<void> {
    for (const map of [this.counters, this.held, this.records, this.settledIds, this.slots, this.seededUntil]) map.clear();
    this.rates.clear();
    this.writeNotes.clear();
  }

  private sweep(scopeKey: string, now: number): void {
    const held = this.held.get(scopeKey);
    if (!held) return;
    for (const [id, h] of held) if (h.expiresAt <= now) held.delete(id);
    if (held.size === 0) this.held.delete(scopeKey);
  }

  /** Assumes the scope was swept in this same critical section. */
  private committedAt(scopeKey: string): number {
    let total = this.counter(scopeKey, this.clock())?.value ?? 0;
    for (const h of this.held.get(scopeKey)?.values() ?? []) total += h.amount;
    return total;
  }

  private counter(key: string, now: number): Counter | undefined {
    const c = this.counters.get(key);
    if (c && c.expiresAt <= now) {
      this.counters.delete(key);
      return undefined;
    }
    return c;
  }

  // Like INCRBY + PEXPIRE on creation: the TTL is fixed when the window's counter is created.
  private incr(key: string, by: number, ttlMs: number, now: number): number {
    const c = this.counter(key, now);
    if (c) return (c.value += by);
    this.counters.set(key, { value: by, expiresAt: now + ttlMs });
    return by;
  }

  private isSettled(id: string, now: number): boolean {
    const until = this.settledIds.get(id);
    if (until === undefined) return false;
    if (until > now) return true;
    this.settledIds.delete(id);
    return false;
  }

  private liveSlots(key: string, now: number): Map<string, number> {
    const leases = this.slots.get(key) ?? new Map<string, number>();
    for (const [id, exp] of leases) if (exp <= now) leases.delete(id);
    if (leases.size === 0) this.slots.delete(key);
    return leases;
  }
}
