import { randomBytes, randomUUID } from 'node:crypto';
import {
  limitKeys,
  LimitStore,
  openLimitStore,
  secondsToNextMonthStart,
  secondsToNextUtcMidnight,
  SpendScope,
  utcDay,
  utcMonth,
} from '@loci/quota';
import { contractRedisTarget, keysMatching, removeKeysMatching } from './redis-target';

/**
 * The limit-store contract: Redis (REDIS_URL) and the in-process store must agree on every
 * behaviour spend control relies on. Redis is shared between runs, so every key (and the
 * reservation-record namespace) lives under a random prefix that afterAll removes.
 */

// REDIS_CLUSTER_NODES runs it on a Redis Cluster (.ci/run does, after .ci/redis-cluster.sh).
const { label, target: redisTarget } = contractRedisTarget();
const onRedis = Boolean(redisTarget);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe(`limit-store contract (${label})`, () => {
  const prefix = `loci-contract:${randomBytes(6).toString('hex')}:`;
  let store: LimitStore;
  let other: LimitStore; // a second "app instance": its own connection on Redis
  let seq = 0;

  const key = (name: string) => `${prefix}${name}:${++seq}`;
  const id = (name: string) => `${name}-${++seq}`;
  const scope = (name: string, capMicros: number | null): SpendScope => ({ key: key(name), capMicros, ttlMs: 60_000 });

  beforeAll(async () => {
    store = openLimitStore(redisTarget, { namespace: `${prefix}ns:` });
    other = redisTarget ? openLimitStore(redisTarget, { namespace: `${prefix}ns:` }) : store;
    await store.now();
  });

  afterAll(async () => {
    if (redisTarget) {
      await removeKeysMatching(redisTarget, `*${prefix}*`); // on a Cluster, behind the limits' hash tag
      await other?.close();
    }
    await store?.close();
  });

  it('is the store the environment selects; now() is server time close to this clock', async () => {
    expect(store.kind).toBe(onRedis ? 'redis' : 'memory');
    expect(Math.abs((await store.now()) - Date.now())).toBeLessThan(5_000);
  });

  describe('reserve and settle', () => {
    it('reserves, then settles to the actual cost, to the micro-dollar', async () => {
      const day = scope('day', 10_000_000);
      const r = id('r');
      await expect(store.reserve(r, [day], 2_500_001, 60_000)).resolves.toEqual({ ok: true, committedMicros: [2_500_001] });
      await expect(store.committed(day.key)).resolves.toBe(2_500_001);
      await store.settle(r, [day], 1_234_567);
      await expect(store.committed(day.key)).resolves.toBe(1_234_567);
    });

    it('keeps amounts near 2^53 exact (Lua doubles, no %g formatting)', async () => {
      const big = scope('big', 9_000_000_000_000_000);
      const r = id('r');
      await store.seedCommitted(big, 1_234_567_890_123_456);
      await expect(store.reserve(r, [big], 7_000_000_000_000_001, 60_000)).resolves.toEqual({
        ok: true,
        committedMicros: [8_234_567_890_123_457],
      });
      await store.settle(r, [big], 7_000_000_000_000_003);
      await expect(store.committed(big.key)).resolves.toBe(8_234_567_890_123_459);
    });

    it('refuses exactly past the cap: committed + amount <= cap fits', async () => {
      const day = scope('edge', 3_000);
      await expect(store.reserve(id('a'), [day], 2_000, 60_000)).resolves.toMatchObject({ ok: true });
      await expect(store.reserve(id('b'), [day], 1_001, 60_000)).resolves.toEqual({
        ok: false,
        scopeIndex: 0,
        committedMicros: 2_000,
        capMicros: 3_000,
      });
      await expect(store.reserve(id('c'), [day], 1_000, 60_000)).resolves.toEqual({ ok: true, committedMicros: [3_000] });
    });

    it('is all-or-nothing across three scopes: one full scope adds nothing anywhere', async () => {
      const day = scope('day', 100_000);
      const month = scope('month', 50_000);
      const platform = scope('platform', 1_000_000);
      await store.seedCommitted(month, 45_000);
      await expect(store.reserve(id('r'), [day, month, platform], 10_000, 60_000)).resolves.toEqual({
        ok: false,
        scopeIndex: 1,
        committedMicros: 45_000,
        capMicros: 50_000,
      });
      await expect(store.committed(day.key)).resolves.toBe(0);
      await expect(store.committed(month.key)).resolves.toBe(45_000);
      await expect(store.committed(platform.key)).resolves.toBe(0);

      await expect(store.reserve(id('r'), [day, month, platform], 5_000, 60_000)).resolves.toEqual({
        ok: true,
        committedMicros: [5_000, 50_000, 5_000],
      });
    });

    it('a null cap counts but never refuses', async () => {
      const unlimited = scope('unlimited', null);
      await expect(store.reserve(id('r'), [unlimited], 8_000_000_000_000, 60_000)).resolves.toMatchObject({ ok: true });
      await expect(store.reserve(id('r'), [unlimited], 1_000_000_000_000, 60_000)).resolves.toEqual({
        ok: true,
        committedMicros: [9_000_000_000_000],
      });
    });

    it('reserve is idempotent on the reservation id', async () => {
      const day = scope('day', 10_000);
      const r = id('r');
      await store.reserve(r, [day], 4_000, 60_000);
      await expect(other.reserve(r, [day], 4_000, 60_000)).resolves.toEqual({ ok: true, committedMicros: [4_000] });
      await expect(store.committed(day.key)).resolves.toBe(4_000);
    });

    it('settle is idempotent, and a reserve repeated after settling adds nothing', async () => {
      const day = scope('day', 10_000);
      const r = id('r');
      await store.reserve(r, [day], 4_000, 60_000);
      await store.settle(r, [day], 3_000);
      await other.settle(r, [day], 3_000);
      await store.settle(r, [day], 9_999);
      await expect(store.committed(day.key)).resolves.toBe(3_000);
      await expect(store.reserve(r, [day], 4_000, 60_000)).resolves.toEqual({ ok: true, committedMicros: [3_000] });
    });

    it('settles in every scope of the reservation', async () => {
      const scopes = [scope('day', 10_000), scope('month', null), scope('platform', 50_000)];
      const r = id('r');
      await store.reserve(r, scopes, 4_000, 60_000);
      await store.settle(r, scopes, 0); // nothing was sent to the provider
      for (const s of scopes) await expect(store.committed(s.key)).resolves.toBe(0);
    });

    it('rejects non-integer and negative money', async () => {
      const day = scope('day', 10_000);
      await expect(store.reserve(id('r'), [day], 1.5, 60_000)).rejects.toThrow(RangeError);
      await expect(store.reserve(id('r'), [day], -1, 60_000)).rejects.toThrow(RangeError);
      await expect(store.reserve(id('r'), [{ ...day, capMicros: 0.5 }], 1, 60_000)).rejects.toThrow(RangeError);
      await expect(store.settle(id('r'), [day], 0.1)).rejects.toThrow(RangeError);
      await expect(store.seedCommitted(day, 2 ** 53)).rejects.toThrow(RangeError);
      await expect(store.committed(day.key)).resolves.toBe(0);
    });

    it('200 concurrent reserves of 1_000 against a cap of 50_000 (two instances): exactly 50 fit', async () => {
      const cap = scope('race', 50_000);
      let peak = 0;
      const results = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const result = await (i % 2 ? other : store).reserve(id('race'), [cap], 1_000, 60_000);
          if (result.ok) peak = Math.max(peak, result.committedMicros[0]);
          return result;
        }),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(50);
      expect(peak).toBe(50_000);
      for (const r of results) if (!r.ok) expect(r).toMatchObject({ committedMicros: 50_000 });
      await expect(store.committed(cap.key)).resolves.toBe(50_000);
    });
  });

  describe('reservation leases', () => {
    it('an unsettled (crashed) reservation gives its amount back after leaseMs', async () => {
      const day = scope('day', 5_000);
      await store.reserve(id('crashed'), [day], 5_000, 150);
      await expect(store.reserve(id('r'), [day], 1, 60_000)).resolves.toMatchObject({ ok: false });
      await sleep(250);
      await expect(store.committed(day.key)).resolves.toBe(0);
      await expect(store.reserve(id('r'), [day], 5_000, 60_000)).resolves.toEqual({ ok: true, committedMicros: [5_000] });
    });

    it('settling after expiry adds the actual cost once', async () => {
      const day = scope('day', 100_000);
      const month = scope('month', null);
      const r = id('slow');
      await store.reserve(r, [day, month], 9_000, 150);
      await sleep(250);
      await store.committed(day.key); // sweeps the day scope; the month scope is still unswept
      await store.settle(r, [day, month], 7_000);
      await store.settle(r, [day, month], 7_000);
      await expect(store.committed(day.key)).resolves.toBe(7_000);
      await expect(store.committed(month.key)).resolves.toBe(7_000);
    });

    it('renewReservation keeps a long request alive; false once it is gone', async () => {
      const day = scope('day', 100_000);
      const r = id('long');
      await store.reserve(r, [day], 6_000, 200);
      await sleep(120);
      await expect(other.renewReservation(r, 400)).resolves.toBe(true);
      await sleep(150); // past the first lease
      await expect(store.committed(day.key)).resolves.toBe(6_000);
      await sleep(400);
      await expect(store.committed(day.key)).resolves.toBe(0);
      await expect(store.renewReservation(r, 400)).resolves.toBe(false);
      await expect(store.renewReservation(id('never'), 400)).resolves.toBe(false);
    });

    it('a settled reservation cannot be renewed', async () => {
      const day = scope('day', 100_000);
      const r = id('r');
      await store.reserve(r, [day], 1_000, 60_000);
      await store.settle(r, [day], 500);
      await expect(store.renewReservation(r, 60_000)).resolves.toBe(false);
    });
  });

  describe('seedCommitted', () => {
    it('sets the settled counter only if absent, never additively', async () => {
      const day = scope('day', null);
      await Promise.all([store.seedCommitted(day, 7_000), other.seedCommitted(day, 7_000), store.seedCommitted(day, 7_000)]);
      await expect(store.committed(day.key)).resolves.toBe(7_000);
      await store.seedCommitted(day, 99_000);
      await expect(store.committed(day.key)).resolves.toBe(7_000);

      const settledFirst = scope('settled-first', null);
      const r = id('r');
      await store.reserve(r, [settledFirst], 100, 60_000);
      await store.settle(r, [settledFirst], 100);
      await store.seedCommitted(settledFirst, 5_000);
      await expect(store.committed(settledFirst.key)).resolves.toBe(100);
    });

    it('marks a scope seeded for its window, seen by every instance; counting alone does not', async () => {
      const [seededScope, counted, shortLived] = [scope('seeded', null), scope('counted', null), { ...scope('short', null), ttlMs: 150 }];
      await expect(store.seeded([seededScope.key, counted.key, shortLived.key])).resolves.toEqual([false, false, false]);
      const r = id('r');
      await store.reserve(r, [counted], 100, 60_000);
      await store.settle(r, [counted], 100);
      await Promise.all([store.seedCommitted(seededScope, 3_000), store.seedCommitted(shortLived, 1)]);
      await expect(other.seeded([seededScope.key, counted.key, shortLived.key])).resolves.toEqual([true, false, true]);
      await expect(store.seeded([])).resolves.toEqual([]);
      await sleep(250);
      await expect(store.seeded([seededScope.key, shortLived.key])).resolves.toEqual([true, false]);
      await expect(store.committed(shortLived.key)).resolves.toBe(0);
    });
  });

  describe('admit (a request admission in one step)', () => {
    const DAY = 86_400_000;
    /** The server's current UTC day, as SpendControl names its keys. */
    async function today() {
      const now = await store.now();
      const fromMs = Math.floor(now / DAY) * DAY;
      return { fromMs, toMs: fromMs + DAY };
    }
    async function seeded(...scopes: SpendScope[]) {
      for (const s of scopes) await store.seedCommitted(s, 0);
      return scopes;
    }
    async function settled(s: SpendScope, micros: number) {
      const r = id('r');
      await store.reserve(r, [s], micros, 60_000);
      await store.settle(r, [s], micros);
    }

    it('takes a slot and counts the quota when everything fits', async () => {
      const [month, day] = await seeded(scope('month', 10_000), scope('day', null));
      const slots = key('slots');
      const quota = key('quota');
      const request = {
        window: await today(),
        slot: { key: slots, leaseId: 'a', limit: 2, leaseMs: 60_000 },
        scopes: [month, day],
        quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 0 },
      };
      await expect(store.admit(request)).resolves.toEqual({ ok: true, slotsActive: 1, quotaCount: 1 });
      await expect(other.admit({ ...request, slot: { ...request.slot, leaseId: 'b' } })).resolves.toEqual({ ok: true, slotsActive: 2, quotaCount: 2 });
      await expect(store.admit({ window: await today(), scopes: [month] })).resolves.toEqual({ ok: true, slotsActive: null, quotaCount: null });
      await expect(store.releaseSlot(slots, 'a')).resolves.toBe(true);
    });

    it('refuses outside the window with the server time, taking nothing', async () => {
      const [day] = await seeded(scope('day', null));
      const quota = key('quota');
      const { fromMs } = await today();
      const result = await store.admit({ window: { fromMs: fromMs - 86_400_000, toMs: fromMs }, scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000 } });
      expect(result).toMatchObject({ ok: false, reason: 'window' });
      expect(Math.abs((result as { nowMs: number }).nowMs - (await store.now()))).toBeLessThan(5_000);
      await expect(store.quotaCount(quota)).resolves.toBe(0);
    });

    it('names the unseeded scopes and takes nothing until they are seeded', async () => {
      const [month] = await seeded(scope('month', null));
      const day = scope('day', null);
      const slots = key('slots');
      const request = { window: await today(), slot: { key: slots, leaseId: 'a', limit: 1, leaseMs: 60_000 }, scopes: [month, day] };
      await expect(store.admit(request)).resolves.toEqual({ ok: false, reason: 'unseeded', scopeIndexes: [1] });
      await expect(store.acquireSlot(slots, 'probe', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await store.releaseSlot(slots, 'probe');
      await store.seedCommitted(day, 0);
      await expect(store.admit(request)).resolves.toMatchObject({ ok: true });
    });

    it('a full slot refuses first and counts no quota; a cap refusal holds no slot and counts no quota', async () => {
      const [month, day] = await seeded(scope('month', 5_000), scope('day', 2_000));
      const slots = key('slots');
      const quota = key('quota');
      const base = { window: await today(), scopes: [month, day], quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 0 } };
      await store.acquireSlot(slots, 'holder', 1, 60_000);
      await expect(store.admit({ ...base, slot: { key: slots, leaseId: 'x', limit: 1, leaseMs: 60_000 } })).resolves.toEqual({ ok: false, reason: 'slot', active: 1 });
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await store.releaseSlot(slots, 'holder');

      await settled(month, 5_000);
      await settled(day, 2_500);
      await expect(store.admit({ ...base, slot: { key: slots, leaseId: 'x', limit: 1, leaseMs: 60_000 } })).resolves.toEqual({
        ok: false,
        reason: 'caps',
        full: [
          { scopeIndex: 0, committedMicros: 5_000 },
          { scopeIndex: 1, committedMicros: 2_500 },
        ],
      });
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await expect(store.acquireSlot(slots, 'probe', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
    });

    it('a live reservation counts toward a cap: committed = settled + reserved', async () => {
      const [day] = await seeded(scope('day', 1_000));
      await store.reserve(id('r'), [day], 1_000, 60_000);
      await expect(store.admit({ window: await today(), scopes: [day] })).resolves.toEqual({
        ok: false,
        reason: 'caps',
        full: [{ scopeIndex: 0, committedMicros: 1_000 }],
      });
    });

    it('an exhausted quota refuses and holds no slot; a refund gives one back, never below 0', async () => {
      const [day] = await seeded(scope('day', null));
      const slots = key('slots');
      const quota = key('quota');
      const request = (leaseId: string) => ({
        window: { fromMs: 0, toMs: 8_640_000_000_000 },
        slot: { key: slots, leaseId, limit: 5, leaseMs: 60_000 },
        scopes: [day],
        quota: { key: quota, limit: 1, ttlMs: 60_000, seed: 0 },
      });
      await expect(store.admit(request('a'))).resolves.toMatchObject({ ok: true, quotaCount: 1 });
      await expect(store.admit(request('b'))).resolves.toEqual({ ok: false, reason: 'quota', count: 1 });
      await expect(store.releaseSlot(slots, 'b')).resolves.toBe(false);
      await store.refundQuota(quota);
      await store.refundQuota(quota);
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await expect(store.admit(request('c'))).resolves.toMatchObject({ ok: true, quotaCount: 1 });
    });

    it('guarded reserve and settle check the seeded marks (and the window) in the same step', async () => {
      const [month] = await seeded(scope('month', 10_000));
      const day = scope('day', 10_000);
      const window = await today();
      const r = id('r');
      await expect(store.reserve(r, [month, day], 1_000, 60_000, { window })).resolves.toEqual({ ok: false, retry: 'unseeded' });
      await expect(store.committed(month.key)).resolves.toBe(0);
      await store.seedCommitted(day, 500);
      await expect(store.reserve(r, [month, day], 1_000, 60_000, { window: { fromMs: window.fromMs - 86_400_000, toMs: window.fromMs } })).resolves.toMatchObject({
        ok: false,
        retry: 'window',
      });
      await expect(other.reserve(r, [month, day], 1_000, 60_000, { window })).resolves.toEqual({ ok: true, committedMicros: [1_000, 1_500] });
      await expect(store.reserve(id('r'), [month, day], 9_000, 60_000, { window })).resolves.toEqual({ ok: false, scopeIndex: 1, committedMicros: 1_500, capMicros: 10_000 });

      const lost = scope('lost', null); // a scope the store lost between reserve and settle
      await expect(store.settle(r, [month, day, lost], 800, {})).resolves.toBe('unseeded');
      await expect(store.committed(month.key)).resolves.toBe(1_000);
      await store.seedCommitted(lost, 0);
      await expect(store.settle(r, [month, day, lost], 800, {})).resolves.toBe('settled');
      await expect(other.settle(r, [month, day, lost], 800, {})).resolves.toBe('already_settled');
      await expect(store.committed(month.key)).resolves.toBe(800);
      await expect(store.committed(day.key)).resolves.toBe(1_300);
      await expect(store.committed(lost.key)).resolves.toBe(800);
    });

    it('a quota counter not seeded takes nothing; the seed is set if absent and counted in the same step', async () => {
      const [day] = await seeded(scope('day', null));
      const slots = key('slots');
      const quota = key('quota');
      const window = await today();
      const request = (leaseId: string, seed?: number) => ({
        window,
        slot: { key: slots, leaseId, limit: 5, leaseMs: 60_000 },
        scopes: [day],
        quota: { key: quota, limit: 5, ttlMs: 60_000, ...(seed === undefined ? {} : { seed }) },
      });
      await expect(store.admit(request('a'))).resolves.toEqual({ ok: false, reason: 'unseeded', scopeIndexes: [], quota: true });
      await expect(store.seeded([quota])).resolves.toEqual([false]);
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await expect(store.releaseSlot(slots, 'a')).resolves.toBe(false); // no slot was taken
      // The count on record (3) is set and this question counted on it: 4.
      await expect(store.admit(request('a', 3))).resolves.toEqual({ ok: true, slotsActive: 1, quotaCount: 4 });
      await expect(store.seeded([quota])).resolves.toEqual([true]);
      // A late seeder (it read the record before) changes nothing: set-if-absent, never additive.
      await expect(other.admit(request('b', 0))).resolves.toMatchObject({ ok: true, quotaCount: 5 });
      await expect(store.admit(request('c'))).resolves.toEqual({ ok: false, reason: 'quota', count: 5 });
    });

    it('names an unseeded quota beside unseeded scopes, in one answer', async () => {
      const day = scope('day', null);
      const quota = key('quota');
      await expect(store.admit({ window: await today(), scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000 } })).resolves.toEqual({
        ok: false,
        reason: 'unseeded',
        scopeIndexes: [0],
        quota: true,
      });
      // A seed given for the quota is set even when a scope still needs seeding (nothing is counted).
      await expect(store.admit({ window: await today(), scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 2 } })).resolves.toEqual({
        ok: false,
        reason: 'unseeded',
        scopeIndexes: [0],
      });
      await expect(store.quotaCount(quota)).resolves.toBe(2);
    });

    it('keeps a quota counter that exists without its seeded mark (counted before the record was kept)', async () => {
      const [day] = await seeded(scope('day', null));
      const quota = key('quota');
      await store.consumeQuota(quota, 10, 60_000);
      await store.consumeQuota(quota, 10, 60_000);
      await expect(store.admit({ window: await today(), scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 0 } })).resolves.toMatchObject({
        ok: true,
        quotaCount: 3,
      });
    });

    it('quota limit 5 on record 2, 10 concurrent seeding admissions from two instances: exactly 3 admitted', async () => {
      const [day] = await seeded(scope('day', null));
      const quota = key('quota');
      const window = await today();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).admit({ window, scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 2 } })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(results.filter((r) => !r.ok && r.reason === 'quota')).toHaveLength(7);
      await expect(store.quotaCount(quota)).resolves.toBe(5);
    });

    it('slot limit 2, 10 concurrent admissions from two instances: exactly 2 admitted, quota counted 2', async () => {
      const [day] = await seeded(scope('day', null));
      const slots = key('slots');
      const quota = key('quota');
      const window = await today();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? other : store).admit({ window, slot: { key: slots, leaseId: `l${i}`, limit: 2, leaseMs: 60_000 }, scopes: [day], quota: { key: quota, limit: 100, ttlMs: 60_000, seed: 0 } }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(2);
      expect(results.filter((r) => !r.ok && r.reason === 'slot')).toHaveLength(8);
      await expect(store.quotaCount(quota)).resolves.toBe(2);
    });
  });

  describe('limits version (cached limit rows)', () => {
    const DAY = 86_400_000;
    async function today() {
      const fromMs = Math.floor((await store.now()) / DAY) * DAY;
      return { fromMs, toMs: fromMs + DAY };
    }

    it('takes nothing from an admission whose limits were read under another version, and answers the version', async () => {
      const day = scope('day', null);
      await store.seedCommitted(day, 0);
      const slots = key('slots');
      const quota = key('quota');
      const request = { window: await today(), slot: { key: slots, leaseId: 'a', limit: 1, leaseMs: 60_000 }, scopes: [day], quota: { key: quota, limit: 5, ttlMs: 60_000, seed: 0 } };
      const stale = await store.admit({ ...request, limitsVersion: 'unknown' });
      expect(stale).toMatchObject({ ok: false, reason: 'limits', version: expect.stringMatching(/^\d+$/) });
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await expect(store.acquireSlot(slots, 'probe', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await store.releaseSlot(slots, 'probe');
      const version = (stale as { version: string }).version;
      await expect(other.admit({ ...request, limitsVersion: version })).resolves.toEqual({ ok: true, slotsActive: 1, quotaCount: 1 });
    });

    it('moves on at every bump, seen by every instance; a request under the old version is refused its step', async () => {
      const day = scope('day', 1_000);
      await store.seedCommitted(day, 0);
      const window = await today();
      const first = ((await store.admit({ window, scopes: [day], limitsVersion: 'unknown' })) as { version: string }).version;
      const bumped = await other.bumpLimitsVersion();
      expect(bumped).not.toBe(first);
      expect(BigInt(bumped)).toBeGreaterThan(BigInt(first));
      await expect(store.admit({ window, scopes: [day], limitsVersion: first })).resolves.toEqual({ ok: false, reason: 'limits', version: bumped });
      await expect(store.reserve(id('r'), [day], 10, 60_000, { window, limitsVersion: first })).resolves.toEqual({ ok: false, retry: 'limits', version: bumped });
      await expect(store.committed(day.key)).resolves.toBe(0);
      await expect(store.reserve(id('r'), [day], 10, 60_000, { window, limitsVersion: bumped })).resolves.toEqual({ ok: true, committedMicros: [10] });
      await expect(store.admit({ window, scopes: [day], limitsVersion: bumped })).resolves.toEqual({ ok: true, slotsActive: null, quotaCount: null });
      // Left out, the version is not checked (an API key's own tenant row, an own-key tenant).
      await expect(store.admit({ window, scopes: [day] })).resolves.toMatchObject({ ok: true });
    });
  });

  describe('concurrency slots', () => {
    it('limit 2, 10 concurrent acquires: exactly 2 admitted', async () => {
      const slots = key('slots');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).acquireSlot(slots, `lease-${i}`, 2, 60_000)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(2);
      for (const r of results) if (!r.ok) expect(r.active).toBe(2);
    });

    it('acquire is idempotent per lease id', async () => {
      const slots = key('slots');
      await expect(store.acquireSlot(slots, 'a', 2, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await expect(store.acquireSlot(slots, 'a', 2, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await expect(store.acquireSlot(slots, 'b', 2, 60_000)).resolves.toEqual({ ok: true, active: 2 });
      await expect(store.acquireSlot(slots, 'a', 2, 60_000)).resolves.toEqual({ ok: true, active: 2 });
      await expect(store.acquireSlot(slots, 'c', 2, 60_000)).resolves.toEqual({ ok: false, active: 2 });
    });

    it('release is per lease id: double release and releasing another id free nothing', async () => {
      const slots = key('slots');
      await store.acquireSlot(slots, 'a', 2, 60_000);
      await store.acquireSlot(slots, 'b', 2, 60_000);
      await expect(store.releaseSlot(slots, 'a')).resolves.toBe(true);
      await expect(store.releaseSlot(slots, 'a')).resolves.toBe(false);
      await expect(store.releaseSlot(slots, 'never-acquired')).resolves.toBe(false);
      await expect(store.acquireSlot(slots, 'c', 2, 60_000)).resolves.toEqual({ ok: true, active: 2 });
      await expect(store.acquireSlot(slots, 'd', 2, 60_000)).resolves.toEqual({ ok: false, active: 2 });
    });

    it("an expired lease frees its slot, and releasing it afterwards frees nobody else's", async () => {
      const slots = key('slots');
      await store.acquireSlot(slots, 'crashed', 1, 150);
      await expect(store.acquireSlot(slots, 'b', 1, 60_000)).resolves.toEqual({ ok: false, active: 1 });
      await sleep(250);
      await expect(store.acquireSlot(slots, 'b', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await expect(store.releaseSlot(slots, 'crashed')).resolves.toBe(false);
      await expect(store.acquireSlot(slots, 'c', 1, 60_000)).resolves.toEqual({ ok: false, active: 1 });
    });

    it('renewSlot keeps a lease alive; false once it expired or was released', async () => {
      const slots = key('slots');
      await store.acquireSlot(slots, 'long', 1, 200);
      await sleep(120);
      await expect(store.renewSlot(slots, 'long', 400)).resolves.toBe(true);
      await sleep(150);
      await expect(store.acquireSlot(slots, 'other', 1, 60_000)).resolves.toEqual({ ok: false, active: 1 });
      await sleep(400);
      await expect(store.renewSlot(slots, 'long', 400)).resolves.toBe(false);
      await expect(store.acquireSlot(slots, 'other', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await store.releaseSlot(slots, 'other');
      await expect(store.renewSlot(slots, 'other', 400)).resolves.toBe(false);
    });
  });

  describe('daily question quota', () => {
    it('limit 3, 10 concurrent consumes: exactly 3 ok, the count stops at 3', async () => {
      const quota = key('quota');
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).consumeQuota(quota, 3, 60_000)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(results.filter((r) => r.ok).map((r) => r.count).sort()).toEqual([1, 2, 3]);
      for (const r of results) if (!r.ok) expect(r.count).toBe(3);
      await expect(store.quotaCount(quota)).resolves.toBe(3);
    });

    it('a quota window expires with its key', async () => {
      const quota = key('quota');
      await expect(store.consumeQuota(quota, 1, 150)).resolves.toEqual({ ok: true, count: 1 });
      await expect(store.consumeQuota(quota, 1, 150)).resolves.toEqual({ ok: false, count: 1 });
      await sleep(250);
      await expect(store.quotaCount(quota)).resolves.toBe(0);
      await expect(store.consumeQuota(quota, 1, 150)).resolves.toEqual({ ok: true, count: 1 });
    });

    it('a zero limit refuses without counting', async () => {
      const quota = key('quota');
      await expect(store.consumeQuota(quota, 0, 60_000)).resolves.toEqual({ ok: false, count: 0 });
      await expect(store.quotaCount(quota)).resolves.toBe(0);
    });
  });
  describe('forgetTenant (the tenant is deleted)', () => {
    it("removes the tenant's counters, reservations, slots, quota and seeded marks, and no other tenant's", async () => {
      const [doomed, kept] = [randomUUID(), randomUUID()];
      const fill = async (tenantId: string) => {
        const day: SpendScope = { key: limitKeys.tenantSpendDay(tenantId, '2026-12-01'), capMicros: 10_000, ttlMs: 60_000 };
        const month: SpendScope = { key: limitKeys.tenantSpendMonth(tenantId, '2026-12'), capMicros: 10_000, ttlMs: 60_000 };
        await store.seedCommitted(day, 1_000);
        await store.seedCommitted(month, 1_000);
        await store.reserve(id('held'), [day, month], 2_000, 60_000); // live: held in both scopes
        await store.settle(id('settled'), [day], 500);
        await store.acquireSlot(limitKeys.userSlots(tenantId, 'u1'), 'lease', 2, 60_000);
        await store.consumeQuota(limitKeys.tenantQuotaDay(tenantId, '2026-12-01'), 5, 60_000);
        return { day, month, slots: limitKeys.userSlots(tenantId, 'u1'), quota: limitKeys.tenantQuotaDay(tenantId, '2026-12-01') };
      };
      const gone = await fill(doomed);
      const stays = await fill(kept);

      await expect(other.forgetTenant(doomed)).resolves.toBeGreaterThan(0);

      await expect(store.committed(gone.day.key)).resolves.toBe(0);
      await expect(store.committed(gone.month.key)).resolves.toBe(0);
      await expect(store.seeded([gone.day.key, gone.month.key])).resolves.toEqual([false, false]);
      await expect(store.quotaCount(gone.quota)).resolves.toBe(0);
      await expect(store.acquireSlot(gone.slots, 'another', 1, 60_000)).resolves.toEqual({ ok: true, active: 1 });
      await expect(store.committed(stays.day.key)).resolves.toBe(3_500);
      await expect(store.committed(stays.month.key)).resolves.toBe(3_000);
      await expect(store.seeded([stays.day.key, stays.month.key])).resolves.toEqual([true, true]);
      await expect(store.quotaCount(stays.quota)).resolves.toBe(1);
      await expect(store.acquireSlot(stays.slots, 'another', 1, 60_000)).resolves.toEqual({ ok: false, active: 1 });

      await expect(store.forgetTenant(doomed)).resolves.toBeGreaterThanOrEqual(1); // the slot just taken
      await expect(store.forgetTenant(doomed)).resolves.toBe(0);
      await store.forgetTenant(kept);
      await expect(store.committed(stays.day.key)).resolves.toBe(0);
    });

    it('takes glob characters in a tenant id literally', async () => {
      const plain = randomUUID();
      const quota = limitKeys.tenantQuotaDay(plain, '2026-12-01');
      await store.consumeQuota(quota, 5, 60_000);
      await expect(store.forgetTenant(`${plain.slice(0, -1)}?`)).resolves.toBe(0);
      await expect(store.forgetTenant('*')).resolves.toBe(0);
      await expect(store.quotaCount(quota)).resolves.toBe(1);
      await store.forgetTenant(plain);
      await expect(store.quotaCount(quota)).resolves.toBe(0);
    });
  });

  // Redis-only: the in-process store has no keys to inspect. A key without a TTL would outlive
  // its window and, for a counter, carry yesterday's spend into a window reusing the name.
  (onRedis ? it : it.skip)('every key it writes expires', async () => {
    const day = scope('ttl', 100_000);
    const r = id('ttl');
    await store.reserve(r, [day], 1_000, 5_000);
    await store.reserve(id('ttl-live'), [day], 1_000, 5_000);
    await store.settle(r, [day], 900);
    const slots = key('ttl-slots');
    await store.acquireSlot(slots, 'a', 1, 5_000);
    const quota = key('ttl-quota');
    await store.consumeQuota(quota, 1, 5_000);
    const keys = await keysMatching(redisTarget!, `*${prefix}*ttl*`);
    expect(keys.length).toBeGreaterThanOrEqual(7); // counter, 3 reservation keys, record, settled marker, slots, quota
    for (const { key: k, pttl } of keys) expect([k, pttl > 0]).toEqual([k, true]); // names the culprit
  });
});

describe('UTC window helpers', () => {
  it('23:59:59.999 belongs to its day and month; midnight starts the next', () => {
    expect(utcDay(Date.parse('2026-11-29T23:59:59.999Z'))).toBe('2026-11-29');
    expect(utcDay(Date.parse('2026-11-30T00:00:00.000Z'))).toBe('2026-11-30');
    expect(utcMonth(Date.parse('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(utcMonth(Date.parse('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
  });

  it('seconds to the next UTC midnight, rounded up', () => {
    expect(secondsToNextUtcMidnight(Date.parse('2026-11-29T23:59:59.999Z'))).toBe(1);
    expect(secondsToNextUtcMidnight(Date.parse('2026-11-29T23:59:00.000Z'))).toBe(60);
    expect(secondsToNextUtcMidnight(Date.parse('2026-11-29T00:00:00.000Z'))).toBe(86_400);
    expect(secondsToNextUtcMidnight(Date.parse('2026-12-31T12:00:00.500Z'))).toBe(43_200);
  });

  it('seconds to the 1st of next month, December rolling into January', () => {
    expect(secondsToNextMonthStart(Date.parse('2026-11-30T23:00:00.000Z'))).toBe(3_600);
    expect(secondsToNextMonthStart(Date.parse('2026-12-31T23:59:59.001Z'))).toBe(1);
    expect(secondsToNextMonthStart(Date.parse('2026-12-01T00:00:00.000Z'))).toBe(31 * 86_400);
    expect(secondsToNextMonthStart(Date.parse('2028-02-01T00:00:00.000Z'))).toBe(29 * 86_400); // leap year
  });
});
