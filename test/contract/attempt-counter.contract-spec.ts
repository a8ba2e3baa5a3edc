import { randomBytes } from 'node:crypto';
import { AttemptPolicy, LimitStore, openLimitStore } from '@loci/quota';
import { contractRedisTarget, keysMatching, removeKeysMatching } from './redis-target';

/**
 * The login attempt counter on the store the environment selects (a Redis Cluster with
 * REDIS_CLUSTER_NODES, Redis with REDIS_URL, else in process): the same answers on each, and atomic under concurrent attempts. Exact timing is the
 * unit spec's (a fake clock); here waits are read back, never slept through. Keys live under a
 * random prefix that afterAll removes, since Redis is shared between runs.
 */
const { label, target: redisTarget } = contractRedisTarget();

describe(`attempt counter contract (${label})`, () => {
  const prefix = `loci-contract-attempts:${randomBytes(6).toString('hex')}:`;
  let store: LimitStore;
  let other: LimitStore; // a second app instance: its own connection on Redis
  let seq = 0;
  const key = () => `${prefix}${++seq}`;
  const noBackoff: AttemptPolicy = { maxFailures: 3, windowMs: 900_000, backoffAfter: 3, backoffBaseMs: 1_000 };

  beforeAll(() => {
    store = openLimitStore(redisTarget);
    other = redisTarget ? openLimitStore(redisTarget) : store;
  });

  afterAll(async () => {
    if (redisTarget) {
      await removeKeysMatching(redisTarget, `*${prefix}*`); // on a Cluster, behind the limits' hash tag
      await other.close();
    }
    await store.close();
  });

  it('counts attempts up to the cap, then refuses for what is left of the window', async () => {
    const k = key();
    for (let i = 1; i <= 3; i++) await expect(store.attempts.take(k, noBackoff)).resolves.toEqual({ ok: true, count: i });
    const refused = await other.attempts.take(k, noBackoff);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeLessThanOrEqual(900_000);
    expect(refused.retryAfterMs).toBeGreaterThan(800_000);
  });

  it('backs off after backoffAfter attempts, the wait measured from the last one', async () => {
    const k = key();
    const policy = { maxFailures: 10, windowMs: 900_000, backoffAfter: 1, backoffBaseMs: 300_000 };
    await expect(store.attempts.take(k, policy)).resolves.toEqual({ ok: true, count: 1 });
    const refused = await store.attempts.take(k, policy);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.retryAfterMs).toBeLessThanOrEqual(300_000);
    expect(refused.retryAfterMs).toBeGreaterThan(200_000);
  });

  it('lets exactly maxFailures of a burst of concurrent attempts through', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).attempts.take(k, noBackoff)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
  });

  it('giveBack uncounts one attempt (never below zero); clear forgets the key', async () => {
    const k = key();
    for (let i = 0; i < 3; i++) await store.attempts.take(k, noBackoff);
    await store.attempts.giveBack(k);
    await expect(store.attempts.take(k, noBackoff)).resolves.toEqual({ ok: true, count: 3 });
    await store.attempts.clear(k);
    await store.attempts.giveBack(k);
    await expect(store.attempts.take(k, noBackoff)).resolves.toEqual({ ok: true, count: 1 });
  });

  if (redisTarget) {
    it('gives each counter the window as its time to live in Redis', async () => {
      const k = key();
      await store.attempts.take(k, noBackoff);
      const found = await keysMatching(redisTarget, `*${k}`);
      expect(found).toHaveLength(1);
      const ttl = found[0].pttl;
      expect(ttl).toBeGreaterThan(800_000);
      expect(ttl).toBeLessThanOrEqual(900_000);
    });
  }
});
