import { randomBytes } from 'node:crypto';
import { LimitStore, openLimitStore } from '@loci/quota';
import { contractRedisTarget, keysMatching, removeKeysMatching } from './redis-target';

/**
 * The request-rate buckets on the store the environment selects (a Redis Cluster with
 * REDIS_CLUSTER_NODES, Redis with REDIS_URL, else in process): the same answers on each, exact
 * under concurrent takes from two app instances, all or nothing across a request's buckets.
 * Refill timing is the unit spec's (a fake clock); here waits are read back, never slept through.
 */
const { label, target: redisTarget } = contractRedisTarget();

describe(`rate limiter contract (${label})`, () => {
  const prefix = `loci-contract-rates:${randomBytes(6).toString('hex')}:`;
  let store: LimitStore;
  let other: LimitStore; // a second app instance: its own connection on Redis
  let seq = 0;
  const key = () => `${prefix}${++seq}`;

  beforeAll(() => {
    store = openLimitStore(redisTarget);
    other = redisTarget ? openLimitStore(redisTarget) : store;
  });

  afterAll(async () => {
    if (redisTarget) {
      await removeKeysMatching(redisTarget, `*${prefix}*`);
      await other.close();
    }
    await store.close();
  });

  it('admits a full burst, counting down what is left, then refuses until the next token', async () => {
    const bucket = { key: key(), perMinute: 6, burst: 3 };
    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const taken = await store.rates.take([bucket]);
      if (!taken.ok) throw new Error(`take ${i} refused`);
      remaining.push(taken.buckets[0].remaining);
      expect(taken.buckets[0].fullInMs).toBeLessThanOrEqual((i + 1) * 10_000);
    }
    expect(remaining).toEqual([2, 1, 0]);
    const refused = await other.rates.take([bucket]);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    // One token every 10 s, and the first of the burst was taken a moment ago.
    expect(refused.retryAfterMs).toBeGreaterThan(9_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(10_000);
  });

  it('lets exactly the burst of a flood of concurrent takes from two instances through', async () => {
    const bucket = { key: key(), perMinute: 1, burst: 7 };
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? other : store).rates.take([bucket])));
    expect(results.filter((r) => r.ok)).toHaveLength(7);
  });

  it('takes from every bucket or from none: an empty key bucket leaves the tenant bucket untouched', async () => {
    const tenant = { key: key(), perMinute: 1, burst: 5 };
    const apiKey = { key: key(), perMinute: 1, burst: 1 };
    const first = await store.rates.take([tenant, apiKey]);
    expect(first.ok && first.buckets.map((b) => b.remaining)).toEqual([4, 0]);
    const refused = await store.rates.take([tenant, apiKey]);
    expect(refused).toMatchObject({ ok: false, bucketIndex: 1 });
    // The refusal took nothing from the tenant's bucket: it still has 4.
    const tenantAlone = await store.rates.take([tenant]);
    expect(tenantAlone.ok && tenantAlone.buckets[0].remaining).toBe(3);
  });

  it('keeps each bucket apart: one tenant emptying its bucket leaves another full', async () => {
    const a = { key: key(), perMinute: 1, burst: 2 };
    const b = { key: key(), perMinute: 1, burst: 2 };
    await store.rates.take([a]);
    await store.rates.take([a]);
    expect((await store.rates.take([a])).ok).toBe(false);
    const taken = await store.rates.take([b]);
    expect(taken.ok && taken.buckets[0].remaining).toBe(1);
  });

  it('forgetting a tenant forgets its buckets', async () => {
    const tenantId = `${randomBytes(4).toString('hex')}-rate-tenant`;
    const bucket = { key: `loci:{t:${tenantId}}:rate:tenant`, perMinute: 1, burst: 1 };
    await store.rates.take([bucket]);
    expect((await store.rates.take([bucket])).ok).toBe(false);
    expect(await store.forgetTenant(tenantId)).toBeGreaterThanOrEqual(1);
    expect((await store.rates.take([bucket])).ok).toBe(true);
    await store.forgetTenant(tenantId);
  });

  if (redisTarget) {
    it('lets a bucket expire when it would be full again', async () => {
      const bucket = { key: key(), perMinute: 60, burst: 10 };
      await store.rates.take([bucket]);
      await store.rates.take([bucket]);
      const found = await keysMatching(redisTarget, `*${bucket.key}`);
      expect(found).toHaveLength(1);
      // Two tokens at one a second: full again in about 2 s.
      expect(found[0].pttl).toBeGreaterThan(1_000);
      expect(found[0].pttl).toBeLessThanOrEqual(2_001);
    });
  }
});
