import { MemoryRateLimiter } from './memory.rate-limiter';
import { takeFromBuckets, tokenIntervalMicros } from './request-rate';

/** The token-bucket rule on a fake clock (the contract suite runs it on every store, unsleeping). */
describe('request rate buckets', () => {
  let now = 1_700_000_000_000;
  const limiter = new MemoryRateLimiter(() => now);
  const bucket = (key: string, perMinute: number, burst: number) => ({ key, perMinute, burst });

  it('refills one token per 60/perMinute seconds, never above the burst', async () => {
    const b = bucket('refill', 60, 2);
    expect((await limiter.take([b])).ok).toBe(true);
    expect((await limiter.take([b])).ok).toBe(true);
    expect(await limiter.take([b])).toEqual({ ok: false, bucketIndex: 0, retryAfterMs: 1_000 });
    now += 999;
    expect((await limiter.take([b])).ok).toBe(false);
    now += 1;
    const again = await limiter.take([b]);
    expect(again.ok && again.buckets[0].remaining).toBe(0);
    // A long pause fills the bucket to its burst, not beyond.
    now += 3_600_000;
    const afterPause = await limiter.take([b]);
    expect(afterPause.ok && afterPause.buckets[0]).toEqual({ perMinute: 60, burst: 2, remaining: 1, fullInMs: 1_000 });
  });

  it('sustains exactly the rate over a minute once the burst is spent', async () => {
    const b = bucket('sustain', 30, 5);
    let admitted = 0;
    for (let ms = 0; ms < 60_000; ms += 100) {
      if ((await limiter.take([b])).ok) admitted++;
      now += 100;
    }
    // The burst at once, then one every 2 s: 5 + 30 (give or take the last step).
    expect(admitted).toBeGreaterThanOrEqual(34);
    expect(admitted).toBeLessThanOrEqual(35);
  });

  it('answers the longest wait among the empty buckets', () => {
    const start = 0;
    const buckets = [bucket('a', 60, 1), bucket('b', 6, 1)];
    const tats = [start + tokenIntervalMicros(60), start + tokenIntervalMicros(6)];
    const { decision, newTats } = takeFromBuckets(buckets, tats, start);
    expect(decision).toEqual({ ok: false, bucketIndex: 1, retryAfterMs: 10_000 });
    expect(newTats).toBeUndefined();
  });

  it('refuses bad buckets before touching anything', async () => {
    await expect(limiter.take([])).rejects.toThrow(RangeError);
    await expect(limiter.take([bucket('x', 0, 1)])).rejects.toThrow(RangeError);
    await expect(limiter.take([bucket('x', 1, 1), bucket('x', 1, 1)])).rejects.toThrow(RangeError);
  });

  it('forgets the buckets of one prefix only', async () => {
    await limiter.take([bucket('loci:{t:gone}:rate:tenant', 1, 1)]);
    await limiter.take([bucket('loci:{t:kept}:rate:tenant', 1, 1)]);
    expect(limiter.forget('loci:{t:gone}:')).toBe(1);
    expect((await limiter.take([bucket('loci:{t:gone}:rate:tenant', 1, 1)])).ok).toBe(true);
    expect((await limiter.take([bucket('loci:{t:kept}:rate:tenant', 1, 1)])).ok).toBe(false);
  });
});
