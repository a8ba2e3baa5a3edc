import { limitKeys, nextMonthStartMs, utcDay } from './limit-keys';

// Redis Cluster hashes only the part between the first `{` and the next `}`.
const hashTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];

describe('limitKeys', () => {
  it("puts every key of one tenant under the tenant's hash tag", () => {
    const keys = [
      limitKeys.tenantSpendDay('t1', '2026-11-29'),
      limitKeys.tenantSpendMonth('t1', '2026-11'),
      limitKeys.userSlots('t1', 'u1'),
      limitKeys.clientSlots('t1', 'key', 'k1'),
      limitKeys.tenantQuotaDay('t1', '2026-11-29'),
    ];
    expect(keys[0]).toBe('loci:{t:t1}:spend:day:2026-11-29');
    expect(keys[1]).toBe('loci:{t:t1}:spend:month:2026-11');
    expect(keys[2]).toBe('loci:{t:t1}:slots:user:u1');
    expect(keys[4]).toBe('loci:{t:t1}:quota:day:2026-11-29');
    expect(new Set(keys.map(hashTag))).toEqual(new Set(['t:t1']));
    expect(limitKeys.platformSpendDay('2026-11-29')).toBe('loci:{platform}:spend:day:2026-11-29');
  });

  it('refuses a tenant id that would move the hash tag', () => {
    expect(() => limitKeys.tenantSpendDay('a}b', '2026-11-29')).toThrow(RangeError);
    expect(() => limitKeys.tenantSpendDay('', '2026-11-29')).toThrow(RangeError);
  });

  it("a tenant's SCAN pattern matches its keys only, glob characters of the id taken literally", () => {
    expect(limitKeys.tenantPattern('t1')).toBe('loci:{t:t1}:*');
    expect(limitKeys.tenantPattern('t*[1]?')).toBe('loci:{t:t\\*\\[1\\]\\?}:*');
    expect(limitKeys.tenantSpendDay('t1', '2026-11-29').startsWith(limitKeys.tenantPrefix('t1'))).toBe(true);
    expect(limitKeys.tenantSpendDay('t10', '2026-11-29').startsWith(limitKeys.tenantPrefix('t1'))).toBe(false);
  });

  it('windows follow UTC, not the local zone', () => {
    expect(utcDay(Date.parse('2026-11-29T23:30:00-05:00'))).toBe('2026-11-30');
    expect(new Date(nextMonthStartMs(Date.parse('2026-12-15T00:00:00Z'))).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});
