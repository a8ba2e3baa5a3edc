import { randomBytes } from 'node:crypto';
import { limitKeys, LimitStore, openLimitStore } from '@loci/quota';
import { contractRedisTarget, keysMatching } from './redis-target';

/**
 * The read replicas' shared write notes (ReadRouter, libs/db; kept by the limit store) on the
 * store the environment selects (a Redis Cluster with REDIS_CLUSTER_NODES, Redis with REDIS_URL,
 * else in process): a note is only ever raised, whichever of two instances' raises lands last;
 * it lives its ttl; a tenant's notes past the bound go to its one overflow note, which only its
 * own graphs' lookups see; deleting a tenant forgets them.
 */
const { label, target: redisTarget } = contractRedisTarget();

describe(`shared write notes contract (${label})`, () => {
  let store: LimitStore;
  let other: LimitStore; // a second app instance: its own connection on Redis
  const tenants: string[] = [];
  const tenant = () => {
    const id = `${randomBytes(6).toString('hex')}-notes`;
    tenants.push(id);
    return id;
  };
  const note = (tenantId: string, graphId: number, lsn: bigint, ttlMs = 60_000, maxPerTenant = 1_000) => ({ tenantId, graphId, lsn, ttlMs, maxPerTenant });

  beforeAll(() => {
    store = openLimitStore(redisTarget);
    other = redisTarget ? openLimitStore(redisTarget) : store;
  });

  afterAll(async () => {
    for (const id of tenants) await store.forgetTenant(id);
    if (redisTarget) await other.close();
    await store.close();
  });

  it('answers no note for a graph never noted, and the noted position once raised, on every instance', async () => {
    const t = tenant();
    expect(await store.writeNotes.lookUp(t, 1)).toBeNull();
    await store.writeNotes.raise(note(t, 1, 0x16b374d848n));
    expect(await other.writeNotes.lookUp(t, 1)).toBe(0x16b374d848n);
    expect(await other.writeNotes.lookUp(t, 2)).toBeNull();
  });

  it('never lowers a note: of concurrent raises from two instances, in any order, the latest position stays', async () => {
    const t = tenant();
    // Positions across the 32-bit halves (a Lua double is exact on each half, not on the whole).
    const positions = Array.from({ length: 40 }, (_, i) => (BigInt(i % 7) << 32n) + BigInt((i * 2_654_435_761) % 0xffffffff));
    const latest = positions.reduce((a, b) => (a > b ? a : b));
    await Promise.all(positions.map((lsn, i) => (i % 2 ? other : store).writeNotes.raise(note(t, 7, lsn))));
    expect(await store.writeNotes.lookUp(t, 7)).toBe(latest);
    await store.writeNotes.raise(note(t, 7, 1n));
    expect(await store.writeNotes.lookUp(t, 7)).toBe(latest);
    const highest = (1n << 64n) - 1n;
    await store.writeNotes.raise(note(t, 7, highest));
    expect(await other.writeNotes.lookUp(t, 7)).toBe(highest);
  });

  it("keeps tenants' notes apart", async () => {
    const a = tenant();
    const b = tenant();
    await store.writeNotes.raise(note(a, 1, 0x3000n));
    expect(await store.writeNotes.lookUp(b, 1)).toBeNull();
  });

  it('lives its ttl, and a raise renews it', async () => {
    const t = tenant();
    await store.writeNotes.raise(note(t, 1, 0x1000n, 1_000));
    await store.writeNotes.raise(note(t, 2, 0x1000n, 1_000));
    if (redisTarget) {
      const found = await keysMatching(redisTarget, `*${limitKeys.writeNote(t, 1)}`);
      expect(found).toHaveLength(1);
      expect(found[0].pttl).toBeGreaterThan(0);
      expect(found[0].pttl).toBeLessThanOrEqual(1_000);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    await store.writeNotes.raise(note(t, 2, 0x2000n, 1_000));
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await store.writeNotes.lookUp(t, 1)).toBeNull();
    expect(await store.writeNotes.lookUp(t, 2)).toBe(0x2000n);
  });

  it("bounds a tenant's notes: past the bound they go to its overflow note, seen by its own graphs only", async () => {
    const t = tenant();
    const neighbour = tenant();
    await store.writeNotes.raise(note(neighbour, 1, 0x10n, 60_000, 3));
    for (let graph = 1; graph <= 3; graph++) await store.writeNotes.raise(note(t, graph, BigInt(0x100 * graph), 60_000, 3));
    // The fourth and fifth graphs of this note life share the overflow note.
    await store.writeNotes.raise(note(t, 4, 0x5000n, 60_000, 3));
    await other.writeNotes.raise(note(t, 5, 0x4000n, 60_000, 3));
    expect(await store.writeNotes.lookUp(t, 4)).toBe(0x5000n);
    expect(await store.writeNotes.lookUp(t, 5)).toBe(0x5000n);
    // A noted graph reads the later of its own note and the overflow; a graph never noted, the overflow.
    expect(await store.writeNotes.lookUp(t, 1)).toBe(0x5000n);
    expect(await store.writeNotes.lookUp(t, 99)).toBe(0x5000n);
    // A graph with its own note keeps raising it, past the bound too.
    await store.writeNotes.raise(note(t, 2, 0x9000n, 60_000, 3));
    expect(await store.writeNotes.lookUp(t, 2)).toBe(0x9000n);
    expect(await store.writeNotes.lookUp(t, 1)).toBe(0x5000n);
    // The neighbour's notes are untouched by it.
    expect(await store.writeNotes.lookUp(neighbour, 1)).toBe(0x10n);
    expect(await store.writeNotes.lookUp(neighbour, 2)).toBeNull();
    if (redisTarget) {
      // Three graphs' notes, the count, the overflow: the tenant's keys, whatever it writes.
      expect(await keysMatching(redisTarget, `*${limitKeys.tenantPattern(t)}`)).toHaveLength(5);
    }
  });

  it('forgetting a tenant forgets its notes', async () => {
    const t = tenant();
    await store.writeNotes.raise(note(t, 1, 0x3000n));
    expect(await store.forgetTenant(t)).toBeGreaterThanOrEqual(2); // the note and the count
    expect(await store.writeNotes.lookUp(t, 1)).toBeNull();
  });

  it('refuses what is not a note', async () => {
    const t = tenant();
    await expect(store.writeNotes.raise(note(t, 1, -1n))).rejects.toThrow('not a WAL position');
    await expect(store.writeNotes.raise(note(t, 1, 1n << 64n))).rejects.toThrow('not a WAL position');
    await expect(store.writeNotes.raise(note(t, 1, 1n, 0))).rejects.toThrow('ttlMs');
  });
});
