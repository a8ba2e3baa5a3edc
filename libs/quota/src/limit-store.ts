import type { SharedWriteNotes } from '@loci/db';
import type { AttemptCounter } from './attempts/attempt-counter';
import type { RateLimiter } from './rates/request-rate';

/**
 * Spend control's atomic core: cost reservations against several caps at once, concurrency
 * slots as leases, and the daily question quota. Redis in production, an in-process store in
 * the embedded default; both have the same semantics and run the same contract suite
 * (test/contract/limit-store.contract-spec.ts). Money is integer micro-dollars throughout.
 */

export interface SpendScope {
  key: string;
  /** null = unlimited, still counted (the platform budget for an own-key tenant, a cap-less tier). */
  capMicros: number | null;
  /** Window length + margin: the counter key expires after its window. */
  ttlMs: number;
}

export type ReserveResult =
  | { ok: true; committedMicros: number[] }
  | { ok: false; scopeIndex: number; committedMicros: number; capMicros: number }
  /** Guarded calls only: a scope is not seeded, or the server time left the window; nothing was taken. */
  | { ok: false; retry: 'unseeded' }
  | { ok: false; retry: 'window'; nowMs: number }
  /** Guarded calls only: the limit rows were read under another version (see Guard.limitsVersion); nothing was taken. */
  | { ok: false; retry: 'limits'; version: string };

/** `settled` now; `already_settled` (a repeat); `unseeded` (guarded calls only: nothing done). */
export type SettleResult = 'settled' | 'already_settled' | 'unseeded';

/**
 * Makes reserve/settle check, in the same atomic step, what SpendControl would otherwise ask
 * in separate round trips: every scope seeded in this store, and (reserve) the server time
 * still in the window the scope keys were named for.
 */
export interface Guard {
  window?: { fromMs: number; toMs: number };
  /** See AdmissionRequest.limitsVersion. */
  limitsVersion?: string;
}

/**
 * One request's admission, checked and taken in one atomic step (one round trip on Redis):
 * the server time must fall in `window` (the UTC day the scope keys were named for), every
 * scope must be seeded, then a concurrency slot, the caps (committed >= cap refuses), then the
 * daily quota. Nothing is taken unless everything passes.
 */
export interface AdmissionRequest {
  window: { fromMs: number; toMs: number };
  slot?: { key: string; leaseId: string; limit: number; leaseMs: number };
  scopes: Array<{ key: string; capMicros: number | null }>;
  /**
   * The daily question quota. Its counter is a cache of the count on record in PostgreSQL, like
   * the spend counters of the ledger: until it is seeded in this store for its window the answer
   * is `unseeded` with `quota: true`, nothing taken; the caller reads the day's count on record
   * and asks again with it as `seed`, which the same atomic step sets if the counter is absent
   * (never additive: concurrent seeders cannot add twice) and marks seeded for ttlMs.
   */
  quota?: { key: string; limit: number; ttlMs: number; seed?: number };
  /**
   * The limits version (LimitStore.bumpLimitsVersion) under which the caller read the limit rows
   * its caps, quota and slot limit come from; when the store's version is another, nothing is
   * taken and the answer is the store's version (read the rows again). Left out: not checked.
   */
  limitsVersion?: string;
}

export type AdmissionResult =
  | { ok: true; slotsActive: number | null; quotaCount: number | null }
  /** The server's clock is outside the window the keys were named for: name them again from nowMs. */
  | { ok: false; reason: 'window'; nowMs: number }
  /**
   * These scopes' counters (and, `quota: true`, the quota's) are not seeded in this store
   * (flushed, new): seed them, then ask again.
   */
  | { ok: false; reason: 'unseeded'; scopeIndexes: number[]; quota?: true }
  | { ok: false; reason: 'slot'; active: number }
  /** Every scope at or over its cap, with what it has committed. */
  | { ok: false; reason: 'caps'; full: Array<{ scopeIndex: number; committedMicros: number }> }
  | { ok: false; reason: 'quota'; count: number }
  /** The limit rows were read under another limits version than the store's `version`: read them again. */
  | { ok: false; reason: 'limits'; version: string };

export interface LimitStore {
  readonly kind: 'redis' | 'memory';
  /** Failed-attempt counters (login throttling), in the same store and on the same connection. */
  readonly attempts: AttemptCounter;
  /** Request rates (token buckets), in the same store and on the same connection. */
  readonly rates: RateLimiter;
  /** Graphs' write notes of the read replicas' router (read-your-writes across instances), in the same store and on the same connection. */
  readonly writeNotes: SharedWriteNotes;
  /** Server time in ms (Redis TIME; the clock for the memory store). Windows are computed from it. */
  now(): Promise<number>;
  /**
   * All-or-nothing: for every scope, committed + amount <= cap (null cap always fits), then adds
   * amount to every scope and records the reservation (id → amount, scope keys, expiry = now +
   * leaseMs). Idempotent on reservationId: a repeat (of a live or an already settled
   * reservation) returns ok without adding again. Before checking, expired reservations of these
   * scopes are swept. committed = settled spend + live reservations.
   */
  reserve(reservationId: string, scopes: SpendScope[], amountMicros: number, leaseMs: number, guard?: Guard): Promise<ReserveResult>;
  /**
   * Replaces the reservation's amount by the actual cost in every given scope and forgets it.
   * Idempotent: a second settle of the same id counts nothing (settled ids are remembered for
   * the longest ttl of the scopes). A reservation that already expired is simply absent, so the
   * actual cost is added once. Pass the same scopes as at reserve.
   */
  settle(reservationId: string, scopes: SpendScope[], actualMicros: number, guard?: Guard): Promise<SettleResult>;
  /** Extends a live reservation's expiry to now + leaseMs (a long request); false if it is gone. */
  renewReservation(reservationId: string, leaseMs: number): Promise<boolean>;
  /** Settled spend + live reservations of one scope (expired reservations swept first). */
  committed(scopeKey: string): Promise<number>;
  /**
   * Rebuild after a Redis flush: sets the settled counter from the ledger sum only if the key is
   * absent (set-if-absent, never additive: several instances may do it at once), and in the same
   * atomic step marks the scope seeded for its ttl (see `seeded`).
   */
  seedCommitted(scope: SpendScope, settledMicros: number): Promise<void>;
  /**
   * Whether each scope's counter (a spend scope's, or a quota key's) was seeded in this store
   * for its window, in one round trip.
   * false means the store never counted this window or lost it (flush, restart): its counter
   * must be rebuilt from the ledger before anything is added to it.
   */
  seeded(scopeKeys: string[]): Promise<boolean[]>;
  /** Concurrency slots as leases scored by expiry (server time). Sweeps, then admits if fewer than `limit` live. Idempotent per leaseId. */
  acquireSlot(key: string, leaseId: string, limit: number, leaseMs: number): Promise<{ ok: boolean; active: number }>;
  /** Sets a live lease's expiry to now + leaseMs; false if it expired or was released. */
  renewSlot(key: string, leaseId: string, leaseMs: number): Promise<boolean>;
  /** Removes only this lease; true if it was live. Double release frees nothing else. */
  releaseSlot(key: string, leaseId: string): Promise<boolean>;
  /**
   * Daily question quota: increments only if count < limit; returns the count after. The key
   * expires ttlMs after its first count. Unseeded and unguarded: admission (`admit`) is how
   * questions are counted.
   */
  consumeQuota(key: string, limit: number, ttlMs: number): Promise<{ ok: boolean; count: number }>;
  quotaCount(key: string): Promise<number>;
  /** Gives one question back to the quota (never below 0): it was counted but not answered. */
  refundQuota(key: string): Promise<void>;
  /** See AdmissionRequest. */
  admit(request: AdmissionRequest): Promise<AdmissionResult>;
  /**
   * Removes every key of one tenant (spend counters and their seeded marks, reservations held
   * in its scopes, concurrency slots, quota counts): the tenant is being deleted. Reservation
   * records and settled-id markers are keyed by reservation id, not tenant; they expire with
   * their lease or window. Answers how many keys were removed.
   */
  forgetTenant(tenantId: string): Promise<number>;
  /**
   * Moves the limits version on (operators changed a tenant's or the platform's limits, or a
   * tenant's life): every instance's cached limit rows stop matching it, so the next admission
   * or reservation on any instance reads them again. Answers the new version. A store that
   * lost the version (a flush) starts a new one from its clock, so a version is never handed
   * out twice and a row cached under an old one never matches again.
   */
  bumpLimitsVersion(): Promise<string>;
  close(): Promise<void>;
}

export const LIMIT_STORE = Symbol('LIMIT_STORE');

/**
 * Where a store keeps what is keyed by reservation id rather than by scope (the reservation
 * record for renewReservation, the settled-id marker). Tests use a random namespace because
 * Redis is shared between runs.
 */
export interface LimitStoreOptions {
  namespace?: string;
}

// Lua numbers are doubles: every amount must be an exact integer there, hence the safe range.
export function assertMicros(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative safe integer of micro-dollars, got ${value}`);
  }
}

export function assertPositiveMs(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer of ms, got ${value}`);
}

export function assertScopes(scopes: SpendScope[]): void {
  if (scopes.length === 0) throw new RangeError('at least one spend scope is required');
  const seen = new Set<string>();
  for (const scope of scopes) {
    if (!scope.key) throw new RangeError('a spend scope needs a key');
    // The same key twice would be checked against the amount once but charged twice.
    if (seen.has(scope.key)) throw new RangeError(`spend scope ${scope.key} given twice`);
    seen.add(scope.key);
    if (scope.capMicros !== null) assertMicros('capMicros', scope.capMicros);
    assertPositiveMs('ttlMs', scope.ttlMs);
  }
}

export function assertId(name: string, id: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new RangeError(`${name} must be a non-empty string`);
}

export function assertAdmission(request: AdmissionRequest): void {
  if (!Number.isSafeInteger(request.window.fromMs) || !Number.isSafeInteger(request.window.toMs) || request.window.fromMs >= request.window.toMs) {
    throw new RangeError('admission window must be integer ms with from < to');
  }
  for (const scope of request.scopes) {
    if (!scope.key) throw new RangeError('a spend scope needs a key');
    if (scope.capMicros !== null) assertMicros('capMicros', scope.capMicros);
  }
  if (request.slot) {
    assertId('leaseId', request.slot.leaseId);
    assertLimit(request.slot.limit);
    assertPositiveMs('leaseMs', request.slot.leaseMs);
  }
  if (request.quota) {
    assertLimit(request.quota.limit);
    assertPositiveMs('ttlMs', request.quota.ttlMs);
    if (request.quota.seed !== undefined) assertLimit(request.quota.seed);
  }
}

export function assertLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
}
