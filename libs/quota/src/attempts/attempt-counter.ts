/**
 * Counting failed attempts at something guessable (a password), per key (an email, a client
 * address), in the limit store: Redis when REDIS_URL is set, else in process. Both stores run
 * the same rules, written once here (`lockedForMs`) and mirrored by the Lua script.
 *
 * An attempt is counted when it is let through, before it is judged, and given back if it turns
 * out not to be a failure: a check that only read the count would let a burst of concurrent
 * attempts all pass before the first failure was written.
 */

export interface AttemptPolicy {
  /** At this many counted attempts the key is refused until its window ends. */
  maxFailures: number;
  /** Starts at the key's first counted attempt (a fixed window); the count is forgotten at its end. */
  windowMs: number;
  /** Counted attempts before the backoff starts; at or above maxFailures there is no backoff. */
  backoffAfter: number;
  /** With n counted attempts (n >= backoffAfter), the next waits backoffBaseMs × 2^(n − backoffAfter) after the last. */
  backoffBaseMs: number;
}

export type AttemptAdmission = { ok: true; count: number } | { ok: false; retryAfterMs: number };

export interface AttemptCounter {
  /** Refuses while the key is locked (its cap reached, or inside its backoff); otherwise counts the attempt, in one atomic step. */
  take(key: string, policy: AttemptPolicy): Promise<AttemptAdmission>;
  /** Uncounts one taken attempt that was not a failure after all (never below zero). */
  giveBack(key: string): Promise<void>;
  /** Forgets the key's attempts: a success. */
  clear(key: string): Promise<void>;
}

/** Beyond 2^30 steps the wait is longer than any window anyway; the cap keeps the number finite. */
const MAX_DOUBLINGS = 30;

/**
 * How long a key with `count` counted attempts, the last at `lastMs` and `windowLeftMs` left of
 * its window, stays refused at `nowMs` (0 = an attempt may go through). Never past the window's end.
 */
export function lockedForMs(policy: AttemptPolicy, count: number, lastMs: number, windowLeftMs: number, nowMs: number): number {
  if (count <= 0) return 0;
  if (count >= policy.maxFailures) return windowLeftMs;
  if (count < policy.backoffAfter) return 0;
  const waitUntil = lastMs + policy.backoffBaseMs * 2 ** Math.min(count - policy.backoffAfter, MAX_DOUBLINGS);
  return Math.max(0, Math.min(waitUntil - nowMs, windowLeftMs));
}

export function assertAttemptPolicy(policy: AttemptPolicy): void {
  const positive = { maxFailures: policy.maxFailures, windowMs: policy.windowMs, backoffBaseMs: policy.backoffBaseMs };
  for (const [name, value] of Object.entries(positive)) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  if (!Number.isSafeInteger(policy.backoffAfter) || policy.backoffAfter < 0) {
    throw new RangeError(`backoffAfter must be a non-negative integer, got ${policy.backoffAfter}`);
  }
}

export function assertAttemptKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new RangeError('an attempt key must be a non-empty string');
}
