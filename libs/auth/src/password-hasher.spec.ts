import { scryptSync } from 'node:crypto';
import { hashPassword, verifyPassword } from './password-hasher';

// Cheap parameters keep the suite fast; the default (log2N 15) is exercised once below.
const FAST = { log2N: 10, r: 8, p: 1 };
const PASSWORD = 'correct horse battery staple';

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` split into its six fields. */
const fieldsOf = (stored: string) => stored.split('$');
const withField = (stored: string, index: number, value: string) => {
  const fields = fieldsOf(stored);
  fields[index] = value;
  return fields.join('$');
};

describe('password hasher', () => {
  let stored: string;
  beforeAll(async () => {
    stored = await hashPassword(PASSWORD, FAST);
  });

  it('verifies the password it hashed', async () => {
    await expect(verifyPassword(PASSWORD, stored)).resolves.toBe(true);
  });

  it('rejects a wrong password, including near misses', async () => {
    await expect(verifyPassword('wrong password entirely', stored)).resolves.toBe(false);
    await expect(verifyPassword(PASSWORD.toUpperCase(), stored)).resolves.toBe(false);
    await expect(verifyPassword(`${PASSWORD} `, stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('salts: two hashes of the same password differ, and both verify', async () => {
    const again = await hashPassword(PASSWORD, FAST);
    expect(again).not.toBe(stored);
    expect(fieldsOf(again)[4]).not.toBe(fieldsOf(stored)[4]);
    await expect(verifyPassword(PASSWORD, again)).resolves.toBe(true);
  });

  it('stores the scheme and its parameters in the hash', async () => {
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(Buffer.from(fieldsOf(stored)[4], 'base64url')).toHaveLength(16);
    expect(Buffer.from(fieldsOf(stored)[5], 'base64url')).toHaveLength(64);
    const withDefaults = await hashPassword(PASSWORD);
    expect(withDefaults).toMatch(/^scrypt\$15\$8\$1\$/);
    await expect(verifyPassword(PASSWORD, withDefaults)).resolves.toBe(true);
  });

  it('reads the parameters from the stored hash, not from the defaults', async () => {
    // The stored key is exactly scrypt with the parameters the hash names (N = 2^10 here).
    const [, , , , salt, key] = fieldsOf(stored);
    const derived = scryptSync(PASSWORD, Buffer.from(salt, 'base64url'), 64, { N: 2 ** 10, r: 8, p: 1 });
    expect(derived.toString('base64url')).toBe(key);
    // Editing a parameter changes the derivation, so the right password no longer matches.
    await expect(verifyPassword(PASSWORD, withField(stored, 1, '11'))).resolves.toBe(false);
    await expect(verifyPassword(PASSWORD, withField(stored, 2, '4'))).resolves.toBe(false);
    // A hash made with other parameters still verifies: old hashes survive a parameter change.
    const other = await hashPassword(PASSWORD, { log2N: 11, r: 4, p: 2 });
    expect(other).toMatch(/^scrypt\$11\$4\$2\$/);
    await expect(verifyPassword(PASSWORD, other)).resolves.toBe(true);
  });

  describe('a malformed stored hash verifies nothing (false, never a throw)', () => {
    const cases: Array<[string, (s: string) => string]> = [
      ['empty string', () => ''],
      ['another scheme', (s) => withField(s, 0, 'argon2')],
      ['a bcrypt hash', () => '$2b$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy'],
      ['too few fields', (s) => fieldsOf(s).slice(0, 5).join('$')],
      ['too many fields', (s) => `${s}$extra`],
      ['non-numeric cost', (s) => withField(s, 1, 'abc')],
      ['zero cost', (s) => withField(s, 1, '0')],
      ['out-of-range cost', (s) => withField(s, 1, '40')],
      ['empty key', (s) => withField(s, 5, '')],
      ['truncated key', (s) => withField(s, 5, fieldsOf(s)[5].slice(0, 10))],
    ];
    it.each(cases)('%s', async (_name, corrupt) => {
      const bad = corrupt(stored);
      await expect(verifyPassword(PASSWORD, bad)).resolves.toBe(false);
      await expect(verifyPassword('any other password', bad)).resolves.toBe(false);
    });
  });
});
