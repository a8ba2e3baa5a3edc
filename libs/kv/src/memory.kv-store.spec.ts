import { MemoryKvStore } from './memory.kv-store';

/**
 * Expiry in the in-process store, on a fake clock: the behaviour the contract suite can only
 * sample with real sleeps is checked here exactly, at and around each boundary.
 */
describe('MemoryKvStore', () => {
  let now: number;
  let kv: MemoryKvStore;

  beforeEach(() => {
    now = 1_000_000;
    kv = new MemoryKvStore(() => now);
  });

  it('keeps a value until its TTL has fully elapsed, then forgets it', async () => {
    await kv.set('k', 'v', { ttlMs: 100 });
    now += 99;
    await expect(kv.get('k')).resolves.toBe('v');
    await expect(kv.ttlMs('k')).resolves.toBe(1);
    now += 1; // expiry is inclusive: at expiresAt the key is gone, as in Redis
    await expect(kv.get('k')).resolves.toBeNull();
    await expect(kv.ttlMs('k')).resolves.toBe(-2);
  });

  it('reports the remaining TTL as the clock moves', async () => {
    await kv.set('k', 'v', { ttlMs: 1_000 });
    await expect(kv.ttlMs('k')).resolves.toBe(1_000);
    now += 400;
    await expect(kv.ttlMs('k')).resolves.toBe(600);
  });

  it('treats a ttlMs of 0 as no expiry', async () => {
    await kv.set('k', 'v', { ttlMs: 0 });
    now += 10 ** 9;
    await expect(kv.ttlMs('k')).resolves.toBe(-1);
    await expect(kv.get('k')).resolves.toBe('v');
  });

  it('replaces the TTL when a key is set again', async () => {
    await kv.set('k', 'a', { ttlMs: 100 });
    await kv.set('k', 'b', { ttlMs: 1_000 });
    now += 500;
    await expect(kv.get('k')).resolves.toBe('b');
    await kv.set('k', 'c');
    now += 10 ** 9;
    await expect(kv.get('k')).resolves.toBe('c');
  });

  it('incrBy fixes the TTL when it creates the key; later calls keep the original deadline', async () => {
    await expect(kv.incrBy('n', 1, { ttlMs: 1_000 })).resolves.toBe(1);
    now += 600;
    await expect(kv.incrBy('n', 1, { ttlMs: 1_000 })).resolves.toBe(2);
    await expect(kv.ttlMs('n')).resolves.toBe(400);
    now += 400;
    await expect(kv.get('n')).resolves.toBeNull();
  });

  it('incrBy after expiry starts a new counter with a new TTL', async () => {
    await kv.incrBy('n', 5, { ttlMs: 100 });
    now += 100;
    await expect(kv.incrBy('n', 1, { ttlMs: 300 })).resolves.toBe(1);
    await expect(kv.ttlMs('n')).resolves.toBe(300);
  });

  it('incrBy without ttlMs creates a key that never expires', async () => {
    await kv.incrBy('n', 3);
    now += 10 ** 9;
    await expect(kv.ttlMs('n')).resolves.toBe(-1);
    await expect(kv.get('n')).resolves.toBe('3');
  });

  it('incrBy rejects a non-integer value and leaves it unchanged', async () => {
    await kv.set('k', '1.5');
    await expect(kv.incrBy('k', 1)).rejects.toThrow(/not an integer/);
    await expect(kv.get('k')).resolves.toBe('1.5');
  });

  it('del and close forget keys', async () => {
    await kv.set('a', '1');
    await kv.set('b', '2');
    await kv.del('a');
    await expect(kv.get('a')).resolves.toBeNull();
    await kv.close();
    await expect(kv.get('b')).resolves.toBeNull();
  });
});
