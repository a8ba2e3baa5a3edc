import { attemptKeys, clientAddressGroup } from './attempt-keys';

describe('login attempt keys', () => {
  it('counts one email however it is cased or padded, without writing the address into the key', () => {
    expect(attemptKeys.loginEmail(' Alice@Example.test ')).toBe(attemptKeys.loginEmail('alice@example.test'));
    expect(attemptKeys.loginEmail('alice@example.test')).not.toContain('alice');
    expect(attemptKeys.loginEmail('alice@example.test')).not.toBe(attemptKeys.loginEmail('bob@example.test'));
  });

  it('groups IPv6 clients by /64 and unwraps IPv4-mapped addresses', () => {
    expect(clientAddressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressGroup('2001:db8:1:2::1')).toBe(clientAddressGroup('2001:db8:1:2:ffff::9'));
    expect(clientAddressGroup('2001:db8:1:2::1')).not.toBe(clientAddressGroup('2001:db8:1:3::1'));
  });

  it('puts clients it cannot read in one group rather than failing', () => {
    expect(clientAddressGroup(undefined)).toBe('unknown');
    expect(clientAddressGroup('not an address')).toBe('unknown');
    expect(attemptKeys.loginAddress('{x}')).toBe('loci:{login:addr:unknown}');
  });
});
