/**
 * Request rates as token buckets, in the limit store: Redis when REDIS_URL is set, else in
 * process. Both stores run the same rule, written once here (`takeFromBuckets`) and mirrored by
 * the Lua script (rate-scripts.ts); keep the two in step.
 *
 * A bucket holds `burst` tokens and gains `perMinute` a minute; a request takes one token from
 * every bucket that applies to it (its tenant's, its API key's), all or none. It is kept as the
 * generic cell rate algorithm (GCRA) keeps a token bucket: one number per bucket, the
 * theoretical arrival time (TAT) at which the bucket would be full again, in microseconds of the
 * store's clock. So a bucket costs one key, and an idle one expires when it would be full.
 */

export interface RateBucket {
  key: string;
  /** Tokens gained a minute (> 0). */
  perMinute: number;
  /** Tokens the bucket holds when full: requests that may come at once (> 0). */
  burst: number;
}

/** One bucket's state after a request took its token. */
export interface BucketState {
  /** The bucket's policy, for the RateLimit headers. */
  perMinute: number;
  burst: number;
  /** Tokens left now. */
  remaining: number;
  /** Until the bucket is full again, in ms. */
  fullInMs: number;
}

export type RateDecision =
  | { ok: true; buckets: BucketState[] }
  /** `bucketIndex`: the bucket that is emptiest; nothing was taken from any bucket. */
  | { ok: false; bucketIndex: number; retryAfterMs: number };

export interface RateLimiter {
  /** Takes one token from every bucket, or none when one is empty (atomic: no other take in between). */
  take(buckets: RateBucket[]): Promise<RateDecision>;
}

const MICROS_A_MINUTE = 60_000_000;

/** Microseconds between two tokens; rounded up, so a bucket never refills faster than its rate. */
export function tokenIntervalMicros(perMinute: number): number {
  return Math.ceil(MICROS_A_MINUTE / perMinute);
}

/**
 * The rule both stores run. `tats[i]`: bucket i's stored TAT (undefined: never used or expired).
 * Answers the decision and, when admitted, each bucket's new TAT to store (it expires when due).
 */
export function takeFromBuckets(
  buckets: RateBucket[],
  tats: Array<number | undefined>,
  nowMicros: number,
): { decision: RateDecision; newTats?: number[] } {
  const newTats: number[] = [];
  const states: BucketState[] = [];
  let refusal: { bucketIndex: number; retryAfterMicros: number } | undefined;
  buckets.forEach((bucket, i) => {
    const interval = tokenIntervalMicros(bucket.perMinute);
    const capacity = interval * bucket.burst;
    const newTat = Math.max(tats[i] ?? nowMicros, nowMicros) + interval;
    const wait = newTat - capacity - nowMicros;
    if (wait > 0) {
      if (!refusal || wait > refusal.retryAfterMicros) refusal = { bucketIndex: i, retryAfterMicros: wait };
      return;
    }
    newTats.push(newTat);
    states.push({
      perMinute: bucket.perMinute,
      burst: bucket.burst,
      remaining: Math.floor((capacity - (newTat - nowMicros)) / interval),
      fullInMs: Math.ceil((newTat - nowMicros) / 1000),
    });
  });
  if (refusal) return { decision: { ok: false, bucketIndex: refusal.bucketIndex, retryAfterMs: Math.ceil(refusal.retryAfterMicros / 1000) } };
  return { decision: { ok: true, buckets: states }, newTats };
}

export function assertBuckets(buckets: RateBucket[]): void {
  if (buckets.length === 0) throw new RangeError('at least one rate bucket is required');
  const seen = new Set<string>();
  for (const bucket of buckets) {
    if (!bucket.key) throw new RangeError('a rate bucket needs a key');
    if (seen.has(bucket.key)) throw new RangeError(`rate bucket ${bucket.key} given twice`);
    seen.add(bucket.key);
    for (const [name, value] of [['perMinute', bucket.perMinute], ['burst', bucket.burst]] as const) {
      if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`);
    }
  }
}
