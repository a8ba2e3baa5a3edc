import { SpendScope } from './limit-store';
import { MemoryLimitStore } from './memory.limit-store';

/**
 * The in-process store on a fake clock: the lease and window boundaries the contract suite can
 * only sample with real sleeps are checked here exactly, at and around each boundary
 * (expired at expiresAt <= now, as the Redis scripts do).
 */
describe('MemoryLimitStore', () => {
  let now: number;
  let store: MemoryLimitStore;
  const day = (capMicros: number | null = 10_000, ttlMs = 86_400_000): SpendScope => ({ key: 'day', capMicros, ttlMs });

  beforeEach(() => {
    now = Date.parse('2026-11-29T12:00:00Z');
    store = new MemoryLimitStore(() => now);
  });

  it('now() is the injected clock', async () => {
    await expect(store.now()).resolves.toBe(now);
  });

  it('a reservation holds until exactly leaseMs, then is swept', async () => {
    await store.reserve('r', [day()], 4_000, 1_000);
    now += 999;
    await expect(store.committed('day')).resolves.toBe(4_000);
    now += 1;
    await expect(store.committed('day')).resolves.toBe(0);
  });

  it('a swept reservation frees room for the next reserve at the same instant', async () => {
    await store.reserve('crashed', [day(5_000)], 5_000, 1_000);
    now += 1_000;
    await expect(store.reserve('next', [day(5_000)], 5_000, 1_000)).resolves.toEqual({ ok: true, committedMicros: [5_000] });
  });

  it('a repeated reserve after its lease expired reserves anew (the first holder is presumed dead)', async () => {
    await store.reserve('r', [day()], 4_000, 1_000);
    now += 1_000;
    await expect(store.reserve('r', [day()], 4_000, 1_000)).resolves.toEqual({ ok: true, committedMicros: [4_000] });
    await store.settle('r', [day()], 3_000);
    await expect(store.committed('day')).resolves.toBe(3_000);
  });

  it('renewReservation sets the expiry to now + leaseMs in every scope', async () => {
    const month: SpendScope = { key: 'month', capMicros: null, ttlMs: 86_400_000 };
    await store.reserve('r', [day(), month], 4_000, 1_000);
    now += 900;
    await expect(store.renewReservation('r', 1_000)).resolves.toBe(true);
    now += 999;
    await expect(store.committed('day')).resolves.toBe(4_000);
    await expect(store.committed('month')).resolves.toBe(4_000);
    now += 1;
    await expect(store.committed('day')).resolves.toBe(0);
    await expect(store.committed('month')).resolves.toBe(0);
    await expect(store.renewReservation('r', 1_000)).resolves.toBe(false);
  });

  it('settle after expiry counts the actual once; the settled id is remembered for the longest ttl', async () => {
    const short = day(null, 10_000);
    await store.reserve('r', [short], 4_000, 1_000);
    now += 5_000;
    await store.settle('r', [short], 2_500);
    await store.settle('r', [short], 2_500);
    await expect(store.committed('day')).resolves.toBe(2_500);
    now += 4_999;
    await store.settle('r', [short], 2_500);
    await expect(store.committed('day')).resolves.toBe(2_500);
  });

  it('the settled counter expires ttlMs after its first write, not after the last', async () => {
    const window = day(null, 10_000);
    await store.settle('a', [window], 100);
    now += 9_000;
    await store.settle('b', [window], 100);
    await expect(store.committed('day')).resolves.toBe(200);
    now += 1_000;
    await expect(store.committed('day')).resolves.toBe(0);
  });

  it('seedCommitted writes only into an absent (or expired) counter', async () => {
    const window = day(null, 10_000);
    await store.seedCommitted(window, 700);
    await store.seedCommitted(window, 900);
    await expect(store.committed('day')).resolves.toBe(700);
    now += 10_000;
    await store.seedCommitted(window, 900);
    await expect(store.committed('day')).resolves.toBe(900);
  });

  it('rejects the same scope key twice (it would be checked once and charged twice)', async () => {
    await expect(store.reserve('r', [day(), day()], 1, 1_000)).rejects.toThrow(/given twice/);
  });

  it('slot leases expire at exactly leaseMs; renew and release follow the same rule', async () => {
    await expect(store.acquireSlot('s', 'a', 1, 1_000)).resolves.toEqual({ ok: true, active: 1 });
    now += 999;
    await expect(store.acquireSlot('s', 'b', 1, 1_000)).resolves.toEqual({ ok: false, active: 1 });
    await expect(store.renewSlot('s', 'a', 1_000)).resolves.toBe(true);
    now += 1_000;
    await expect(store.renewSlot('s', 'a', 1_000)).resolves.toBe(false);
    await expect(store.releaseSlot('s', 'a')).resolves.toBe(false);
    await expect(store.acquireSlot('s', 'b', 1, 1_000)).resolves.toEqual({ ok: true, active: 1 });
    await expect(store.releaseSlot('s', 'b')).resolves.toBe(true);
    await expect(store.releaseSlot('s', 'b')).resolves.toBe(false);
  });

  it('a quota window ends ttlMs after its first question however busy it was', async () => {
    await store.consumeQuota('q', 5, 1_000);
    now += 999;
    await expect(store.consumeQuota('q', 5, 1_000)).resolves.toEqual({ ok: true, count: 2 });
    now += 1;
    await expect(store.quotaCount('q')).resolves.toBe(0);
    await expect(store.consumeQuota('q', 5, 1_000)).resolves.toEqual({ ok: true, count: 1 });
  });

  it('validates leases and limits', async () => {
    await expect(store.reserve('r', [day()], 1, 0)).rejects.toThrow(RangeError);
    await expect(store.acquireSlot('s', 'a', 1.5, 1_000)).rejects.toThrow(RangeError);
    await expect(store.consumeQuota('q', -1, 1_000)).rejects.toThrow(RangeError);
    await expect(store.reserve('', [day()], 1, 1_000)).rejects.toThrow(RangeError);
  });
});
