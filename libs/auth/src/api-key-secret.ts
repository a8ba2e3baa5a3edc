import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `loci_<43 base64url chars>` (32 random bytes). We store only the first
 * characters (to find the row) and the sha256 of the whole key: a fast hash is right here
 * because the secret has 256 bits of entropy, and it keeps the per-request check cheap.
 */
export const API_KEY_MARKER = 'loci_';
const PREFIX_LENGTH = API_KEY_MARKER.length + 8;
const API_KEY_PATTERN = /^loci_[A-Za-z0-9_-]{43}$/;

export interface GeneratedApiKey {
  key: string;
  prefix: string;
  secretHash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const key = API_KEY_MARKER + randomBytes(32).toString('base64url');
  return { key, prefix: apiKeyPrefix(key), secretHash: hashApiKey(key) };
}

export const looksLikeApiKey = (token: string): boolean => token.startsWith(API_KEY_MARKER);
export const isWellFormedApiKey = (token: string): boolean => API_KEY_PATTERN.test(token);
export const apiKeyPrefix = (key: string): string => key.slice(0, PREFIX_LENGTH);
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export function apiKeyMatches(key: string, secretHash: string): boolean {
  const actual = Buffer.from(hashApiKey(key), 'hex');
  const expected = Buffer.from(secretHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
