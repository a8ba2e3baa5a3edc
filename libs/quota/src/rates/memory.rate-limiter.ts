import { assertBuckets, RateBucket, RateDecision, RateLimiter, takeFromBuckets } from './request-rate';

/**
 * The in-process rate limiter (embedded default; one process only). `take` reads, decides and
 * writes without an await, so no other take interleaves.
 */
export class MemoryRateLimiter implements RateLimiter {
  /** Bucket key → TAT in µs; a TAT in the past is a full bucket, the same as no entry. */
  private readonly tats = new Map<string, number>();

  constructor(private readonly clockMs: () => number = Date.now) {}

  async take(buckets: RateBucket[]): Promise<RateDecision> {
    assertBuckets(buckets);
    const now = this.clockMs() * 1000;
    if (this.tats.size > SWEEP_AT) this.sweep(now);
    const { decision, newTats } = takeFromBuckets(
      buckets,
      buckets.map((b) => this.tats.get(b.key)),
      now,
    );
    newTats?.forEach((tat, i) => this.tats.set(buckets[i].key, tat));
    return decision;
  }

  /** Forgets every bucket whose key starts with `prefix` (a deleted tenant's); answers how many. */
  forget(prefix: string): number {
    let removed = 0;
    for (const key of this.tats.keys()) {
      if (key.startsWith(prefix)) {
        this.tats.delete(key);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.tats.clear();
  }

  /** Full buckets carry nothing: dropping them bounds the map by the buckets in use. */
  private sweep(nowMicros: number): void {
    for (const [key, tat] of this.tats) if (tat <= nowMicros) this.tats.delete(key);
  }
}

/** Buckets kept before full ones are swept (a sweep walks them all, so not on every take). */
const SWEEP_AT = 10_000;
