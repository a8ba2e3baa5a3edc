import calculateSlot from 'cluster-key-slot';
import { attemptKeys } from './attempts/attempt-keys';
import { limitKeys } from './limit-keys';
import { CLUSTER_KEY_PREFIX } from './redis.limit-store';

/**
 * On a Redis Cluster the keys of one Lua script must share a hash slot (else CROSSSLOT). A
 * request's admission, reserve and settle name a tenant's counters, the platform's counter and
 * the reservation record together; this computes, with the slot function Redis Cluster uses,
 * the slot of every key family those scripts are called with, as ioredis sends them (behind
 * CLUSTER_KEY_PREFIX). The contract suite runs the scripts themselves on a real cluster.
 */
describe('limit keys on a Redis Cluster', () => {
  const tenants = ['4b1f7a52-0c7e-4a55-9d59-7f2d0c0f9e11', '00000000-0000-0000-0000-000000000000', 'weird id:with*glob'];
  const day = '2026-12-01';
  const month = '2026-12';
  // What RedisLimitStore derives from a scope key and a reservation id (see redis.limit-store.ts).
  const perScope = (key: string) => [key, `${key}:res:exp`, `${key}:res:amt`, `${key}:res:sum`, `${key}:seeded`, `${key}:none`];
  const perReservation = (id: string, namespace = 'loci:') => [`${namespace}reservation:${id}`, `${namespace}settled:${id}`];

  function keysOfOneRequest(tenantId: string): string[] {
    const scopes = [limitKeys.tenantSpendDay(tenantId, day), limitKeys.tenantSpendMonth(tenantId, month), limitKeys.platformSpendDay(day)];
    return [
      ...scopes.flatMap(perScope),
      ...perReservation('9f0c5a7e-reservation'),
      limitKeys.clientSlots(tenantId, 'user', 'u-1'),
      limitKeys.clientSlots(tenantId, 'key', 'k-1'),
      limitKeys.userSlots(tenantId, 'u-1'),
      limitKeys.tenantQuotaDay(tenantId, day),
      limitKeys.tenantRate(tenantId),
      limitKeys.keyRate(tenantId, 'k-1'),
      limitKeys.writeNote(tenantId, 42),
      limitKeys.writeNotesMade(tenantId),
      limitKeys.writeNoteOverflow(tenantId),
      'loci:admission:none',
    ];
  }

  const slotsOf = (keys: string[]) => new Set(keys.map((key) => calculateSlot(key)));

  it('puts every key of every limit script, of every tenant, in one slot behind the prefix', () => {
    const keys = tenants.flatMap(keysOfOneRequest);
    const loginKeys = [attemptKeys.loginEmail('Ann@Example.com'), attemptKeys.loginAddress('2001:db8::1'), attemptKeys.loginAddress(undefined)];
    const sent = [...keys, ...loginKeys].map((key) => `${CLUSTER_KEY_PREFIX}${key}`);
    expect(slotsOf(sent)).toEqual(new Set([calculateSlot(CLUSTER_KEY_PREFIX)]));
  });

  it('needs the prefix: under their own hash tags a tenant and the platform hash to different slots', () => {
    const tenantId = tenants[0];
    expect(slotsOf([limitKeys.tenantSpendDay(tenantId, day), limitKeys.platformSpendDay(day), ...perReservation('r')]).size).toBe(4);
  });

  it('the prefix is a hash tag that comes first, so braces later in a key cannot move it', () => {
    expect(CLUSTER_KEY_PREFIX).toMatch(/^\{[^{}]+\}/);
    expect(calculateSlot(`${CLUSTER_KEY_PREFIX}loci:{t:a}:x`)).toBe(calculateSlot(`${CLUSTER_KEY_PREFIX}loci:{platform}:y`));
  });
});
