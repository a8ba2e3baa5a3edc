import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SettingsError } from './settings.schema';

/**
 * Returns a secret kept in `<dataDir>/secrets/<name>`, generating it on first use.
 * The embedded default needs stable secrets (JWT signing, the encryption key) without
 * anyone configuring them, and a constant in code would be the same for every install.
 * The file is created with O_EXCL, so two processes starting together agree on one value.
 *
 * `variable` is the setting that would make the file unnecessary: when the directory cannot be
 * written (a container running as an unprivileged user, a read-only volume), the error names it
 * instead of surfacing a bare EACCES with a stack trace.
 */
export function readOrCreateDataDirSecret(dataDir: string, name: string, bytes = 48, variable?: string): string {
  const dir = join(dataDir, 'secrets');
  const file = join(dir, name);
  let secret: string;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, randomBytes(bytes).toString('base64url'), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    secret = readFileSync(file, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    const setting = variable ?? name;
    throw new SettingsError([
      `${setting}: not set, and it could not be kept in ${file} (${code}): set ${setting}, or make LOCI_DATA_DIR (${dataDir}) writable`,
    ]);
  }
  if (secret.length < 32) {
    throw new SettingsError([`${variable ?? name}: the secret file ${file} is shorter than 32 characters; delete it to regenerate one`]);
  }
  return secret;
}
