import type { ScriptRunner } from '../attempts/redis.attempt-counter';
import { assertBuckets, RateBucket, RateDecision, RateLimiter } from './request-rate';
import { TAKE_TOKENS } from './rate-scripts';

/**
 * The rate limiter in Redis, on the limit store's connection: one script over a request's buckets,
 * all keyed under one tenant's hash tag, so it is atomic across app instances and fits one
 * Redis Cluster slot.
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly run: ScriptRunner) {}

  async take(buckets: RateBucket[]): Promise<RateDecision> {
    assertBuckets(buckets);
    const args = buckets.flatMap((b) => [String(b.perMinute), String(b.burst)]);
    const reply = (await this.run(
      TAKE_TOKENS,
      buckets.map((b) => b.key),
      args,
    )) as number[];
    if (reply[0] === 0) return { ok: false, bucketIndex: Number(reply[1]) - 1, retryAfterMs: Number(reply[2]) };
    return {
      ok: true,
      buckets: buckets.map((b, i) => ({
        perMinute: b.perMinute,
        burst: b.burst,
        remaining: Number(reply[1 + 2 * i]),
        fullInMs: Number(reply[2 + 2 * i]),
      })),
    };
  }
}
