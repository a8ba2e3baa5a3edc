import { randomBytes, scrypt as scryptCallback, ScryptOptions, timingSafeEqual } from 'node:crypto';

/**
 * Password hashing with scrypt (memory-hard, in node:crypto). The parameters are stored in
 * each hash, so they can be raised later without invalidating old hashes:
 * `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>`.
 */
const DEFAULT_PARAMS = { log2N: 15, r: 8, p: 1 }; // 32 MiB, ~50-100 ms on one core
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCallback(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

const optionsFor = (log2N: number, r: number, p: number): ScryptOptions => ({
  N: 2 ** log2N,
  r,
  p,
  maxmem: 2 * 128 * r * 2 ** log2N + 1024 * 1024,
});

export async function hashPassword(password: string, params = DEFAULT_PARAMS): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, optionsFor(params.log2N, params.r, params.p));
  return ['scrypt', params.log2N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const expected = Buffer.from(parts[5], 'base64url');
  // A short key would match (almost) any password; parameters scrypt rejects mean a corrupt hash.
  if (expected.length < 16) return false;
  const actual = await scrypt(password, salt, expected.length, optionsFor(log2N, r, p)).catch(() => undefined);
  return actual !== undefined && timingSafeEqual(actual, expected);
}
