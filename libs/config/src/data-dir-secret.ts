import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Returns a secret kept in `<dataDir>/secrets/<name>`, generating it on first use.
 * The embedded default needs stable secrets (JWT signing, later the encryption key) without
 * anyone configuring them, and a constant in code would be the same for every install.
 * The file is created with O_EXCL, so two processes starting together agree on one value.
 */
export function readOrCreateDataDirSecret(dataDir: string, name: string, bytes = 48): string {
  const dir = join(dataDir, 'secrets');
  const file = join(dir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    writeFileSync(file, randomBytes(bytes).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(`The secret file ${file} is shorter than 32 characters; delete it to regenerate one.`);
  }
  return secret;
}
