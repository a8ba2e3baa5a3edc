import { AttemptAdmission, AttemptCounter, AttemptPolicy, assertAttemptKey, assertAttemptPolicy, lockedForMs } from './attempt-counter';

interface Attempts {
  count: number;
  lastMs: number;
  expiresAt: number;
}

/**
 * The in-process attempt counter (embedded default; one process only). Each method reads,
 * decides and writes without an await, so no other call interleaves.
 */
export class MemoryAttemptCounter implements AttemptCounter {
  // Insertion order is first-attempt order, so with one window length it is also expiry order:
  // the sweep stops at the first live key instead of walking them all.
  private readonly keys = new Map<string, Attempts>();

  constructor(private readonly clock: () => number = Date.now) {}

  async take(key: string, policy: AttemptPolicy): Promise<AttemptAdmission> {
    assertAttemptKey(key);
    assertAttemptPolicy(policy);
    const now = this.clock();
    this.sweep(now);
    const attempts = this.keys.get(key);
    if (attempts) {
      const lockedMs = lockedForMs(policy, attempts.count, attempts.lastMs, attempts.expiresAt - now, now);
      if (lockedMs > 0) return { ok: false, retryAfterMs: lockedMs };
      attempts.count += 1;
      attempts.lastMs = now;
      return { ok: true, count: attempts.count };
    }
    this.keys.set(key, { count: 1, lastMs: now, expiresAt: now + policy.windowMs });
    return { ok: true, count: 1 };
  }

  async giveBack(key: string): Promise<void> {
    const attempts = this.live(key);
    if (attempts && attempts.count > 0) attempts.count -= 1;
  }

  async clear(key: string): Promise<void> {
    this.keys.delete(key);
  }

  private live(key: string): Attempts | undefined {
    const attempts = this.keys.get(key);
    if (attempts && attempts.expiresAt <= this.clock()) {
      this.keys.delete(key);
      return undefined;
    }
    return attempts;
  }

  /** Drops expired keys from the front, so keys an attacker makes up do not pile up. */
  private sweep(now: number): void {
    for (const [key, attempts] of this.keys) {
      if (attempts.expiresAt > now) return;
      this.keys.delete(key);
    }
  }
}
