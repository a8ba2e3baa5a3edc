import { randomBytes } from 'node:crypto';
import { KvStore, openKvStore } from '@loci/kv';

/**
 * The limit-store contract: the same behaviour from Redis (REDIS_URL) and the in-process store,
 * since quotas, cost caps and concurrency slots are built on these operations. CI runs it both
 * ways. Redis may be shared with other runs, so every key lives under a random prefix.
 */

const onRedis = Boolean(process.env.REDIS_URL);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`kv contract (${onRedis ? 'Redis' : 'memory'})`, () => {
  const prefix = `loci-contract:${randomBytes(6).toString('hex')}:`;
  const used: string[] = [];
  let kv: KvStore;

  /** A key no other test (or run) uses; remembered so afterAll can remove it from Redis. */
  const key = (name: string) => {
    const full = `${prefix}${name}`;
    used.push(full);
    return full;
  };

  beforeAll(async () => {
    // The kv store reads only `redis` from the settings, so no database is set up for it.
    kv = openKvStore({ redis: { url: process.env.REDIS_URL || undefined } });
    await kv.ping();
  });

  afterAll(async () => {
    if (!kv) return;
    for (const k of used) await kv.del(k);
    await kv.close();
  });

  it('is the store the environment selects, and answers ping', async () => {
    expect(kv.kind).toBe(onRedis ? 'redis' : 'memory');
    await expect(kv.ping()).resolves.toBeUndefined();
  });

  it('returns null for a missing key', async () => {
    await expect(kv.get(key('missing'))).resolves.toBeNull();
  });

  it('stores and overwrites values', async () => {
    const k = key('set-get');
    await kv.set(k, 'first');
    await expect(kv.get(k)).resolves.toBe('first');
    await kv.set(k, 'second');
    await expect(kv.get(k)).resolves.toBe('second');
  });

  it('expires a value set with ttlMs', async () => {
    // A behaviour check, not a timing benchmark: the margin is generous on purpose.
    const k = key('expiring');
    await kv.set(k, 'soon gone', { ttlMs: 50 });
    await expect(kv.get(k)).resolves.toBe('soon gone');
    await sleep(120);
    await expect(kv.get(k)).resolves.toBeNull();
    await expect(kv.ttlMs(k)).resolves.toBe(-2);
  });

  it('clears an earlier TTL when a value is set again without one', async () => {
    const k = key('persist');
    await kv.set(k, 'a', { ttlMs: 60_000 });
    await kv.set(k, 'b');
    await expect(kv.ttlMs(k)).resolves.toBe(-1);
  });

  it('deletes a key, and deleting a missing key is not an error', async () => {
    const k = key('deleted');
    await kv.set(k, 'value');
    await kv.del(k);
    await expect(kv.get(k)).resolves.toBeNull();
    await expect(kv.del(k)).resolves.toBeUndefined();
  });

  it('incrBy returns running totals, starting from zero', async () => {
    const k = key('counter');
    await expect(kv.incrBy(k, 1)).resolves.toBe(1);
    await expect(kv.incrBy(k, 2)).resolves.toBe(3);
    await expect(kv.incrBy(k, 10)).resolves.toBe(13);
    await expect(kv.incrBy(k, -4)).resolves.toBe(9); // releases (a slot, a reservation) count down
    await expect(kv.get(k)).resolves.toBe('9');
  });

  it('incrBy sets the TTL when it creates the key, and later calls do not extend it', async () => {
    // A daily quota window must end when it was created to end, however busy the day was.
    const k = key('window');
    await kv.incrBy(k, 1, { ttlMs: 10_000 });
    const first = await kv.ttlMs(k);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(10_000);

    await kv.incrBy(k, 1, { ttlMs: 60_000 });
    const second = await kv.ttlMs(k);
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThanOrEqual(first);
  });

  it('incrBy without ttlMs leaves the key without expiry', async () => {
    const k = key('no-expiry-counter');
    await kv.incrBy(k, 5);
    await expect(kv.ttlMs(k)).resolves.toBe(-1);
  });

  it('incrBy gives a TTL to an existing key that has none, so a counter never lives forever', async () => {
    const k = key('incr-adopts-ttl');
    await kv.set(k, '5');
    await expect(kv.incrBy(k, 1, { ttlMs: 30_000 })).resolves.toBe(6);
    const ttl = await kv.ttlMs(k);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('ttlMs is -2 for a missing key, -1 without expiry, and the remaining time otherwise', async () => {
    await expect(kv.ttlMs(key('ttl-missing'))).resolves.toBe(-2);

    const forever = key('ttl-forever');
    await kv.set(forever, 'x');
    await expect(kv.ttlMs(forever)).resolves.toBe(-1);

    const expiring = key('ttl-expiring');
    await kv.set(expiring, 'x', { ttlMs: 30_000 });
    const remaining = await kv.ttlMs(expiring);
    expect(remaining).toBeGreaterThan(25_000);
    expect(remaining).toBeLessThanOrEqual(30_000);
  });

  it('incrBy is atomic: 200 concurrent increments end at exactly 200, each seeing its own total', async () => {
    const k = key('concurrent');
    const totals = await Promise.all(Array.from({ length: 200 }, () => kv.incrBy(k, 1, { ttlMs: 60_000 })));
    await expect(kv.get(k)).resolves.toBe('200');
    // A lost update would show as a repeated total (and a final value below 200).
    expect(new Set(totals).size).toBe(200);
    expect(Math.max(...totals)).toBe(200);
  });

  it('incrBy rejects a value that is not an integer', async () => {
    const k = key('not-a-number');
    await kv.set(k, 'abc');
    await expect(kv.incrBy(k, 1)).rejects.toThrow();
    await expect(kv.get(k)).resolves.toBe('abc');
  });
});
