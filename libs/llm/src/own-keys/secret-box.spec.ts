import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('round-trips, with a different ciphertext each time', () => {
    const a = box.seal('sk-ant-secret', 'tenant-1');
    const b = box.seal('sk-ant-secret', 'tenant-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-ant-secret');
    expect(box.open(a, 'tenant-1')).toBe('sk-ant-secret');
    expect(box.open(b, 'tenant-1')).toBe('sk-ant-secret');
  });

  it('refuses a value sealed for another tenant', () => {
    expect(() => box.open(box.seal('k', 'tenant-1'), 'tenant-2')).toThrow();
  });

  it('refuses a tampered value and another key', () => {
    const sealed = box.seal('sk-live', 't');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([parts[0], parts[1], parts[2], flipped.toString('base64url')].join('.'), 't')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 't')).toThrow();
    expect(() => box.open('garbage', 't')).toThrow('not a sealed value');
  });

  it('needs a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow();
  });
});
