import { createHash } from 'node:crypto';
import {
  API_KEY_MARKER,
  apiKeyMatches,
  apiKeyPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  looksLikeApiKey,
} from './api-key-secret';

// A real HS256 JWT's shape: three base64url segments, the first decoding to {"alg":...}.
const JWT_SHAPED =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwicm9sZSI6ImFkbWluIn0.c2lnbmF0dXJlLW5vdC1jaGVja2Vk';

describe('API key secrets', () => {
  it('generates loci_ + 43 base64url characters (32 random bytes)', () => {
    const { key } = generateApiKey();
    expect(API_KEY_MARKER).toBe('loci_');
    expect(key).toMatch(/^loci_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(API_KEY_MARKER.length), 'base64url')).toHaveLength(32);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('generates a different key, prefix and hash every time', () => {
    const keys = Array.from({ length: 50 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.key)).size).toBe(50);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(50);
    expect(new Set(keys.map((k) => k.secretHash)).size).toBe(50);
  });

  it('derives the prefix from the key: the marker and the first 8 secret characters', () => {
    const generated = generateApiKey();
    expect(generated.prefix).toBe(generated.key.slice(0, 13));
    expect(generated.prefix).toMatch(/^loci_[A-Za-z0-9_-]{8}$/);
    expect(apiKeyPrefix(generated.key)).toBe(generated.prefix);
    // The prefix is shown in listings, so it must not reveal most of the secret.
    expect(generated.key.length - generated.prefix.length).toBe(35);
  });

  it('stores the sha256 of the whole key, never the key itself', () => {
    const generated = generateApiKey();
    const expected = createHash('sha256').update(generated.key).digest('hex');
    expect(generated.secretHash).toBe(expected);
    expect(hashApiKey(generated.key)).toBe(expected);
    expect(generated.secretHash).not.toContain(generated.key.slice(API_KEY_MARKER.length));
  });

  it('matches the key against its hash, and only that key', () => {
    const generated = generateApiKey();
    expect(apiKeyMatches(generated.key, generated.secretHash)).toBe(true);
    expect(apiKeyMatches(generateApiKey().key, generated.secretHash)).toBe(false);
    // Same prefix, one character changed in the secret part.
    const last = generated.key.at(-1) === 'A' ? 'B' : 'A';
    const tampered = generated.key.slice(0, -1) + last;
    expect(apiKeyPrefix(tampered)).toBe(generated.prefix);
    expect(apiKeyMatches(tampered, generated.secretHash)).toBe(false);
  });

  it('treats a malformed stored hash as a mismatch instead of throwing', () => {
    const { key, secretHash } = generateApiKey();
    expect(apiKeyMatches(key, '')).toBe(false);
    expect(apiKeyMatches(key, secretHash.slice(0, 32))).toBe(false);
    expect(apiKeyMatches(key, 'not hex at all')).toBe(false);
  });

  it('tells an API key from a JWT by its shape', () => {
    const { key } = generateApiKey();
    expect(looksLikeApiKey(key)).toBe(true);
    expect(looksLikeApiKey(JWT_SHAPED)).toBe(false);
    expect(isWellFormedApiKey(JWT_SHAPED)).toBe(false);
    // Anything with the marker is routed to the API-key check, even when malformed...
    expect(looksLikeApiKey('loci_short')).toBe(true);
    // ...where the strict pattern rejects it.
    expect(isWellFormedApiKey('loci_short')).toBe(false);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, -1)}!`)).toBe(false);
    expect(isWellFormedApiKey(`LOCI_${key.slice(5)}`)).toBe(false);
    expect(isWellFormedApiKey(` ${key}`)).toBe(false);
  });
});
