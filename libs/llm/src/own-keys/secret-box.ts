import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals secrets at rest (tenants' own provider keys) with AES-256-GCM: a fresh 96-bit nonce
 * per value, and the tenant id as associated data, so a sealed key copied onto another
 * tenant's row does not open. Format: `v1.<nonce>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string, associatedData: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', nonce, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** Throws when the value was tampered with, sealed under another key, or for another owner. */
  open(sealed: string, associatedData: string): string {
    const [version, nonce, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !nonce || !tag || ciphertext === undefined) throw new Error('not a sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}
