import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from './settings';

describe('loadSettings', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'loci-settings-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('generates the JWT secret once into the data dir and reuses it', () => {
    const first = loadSettings({ LOCI_DATA_DIR: dataDir });
    const second = loadSettings({ LOCI_DATA_DIR: dataDir });
    expect(first.jwt.secretSource).toBe('data-dir');
    expect(first.jwt.secret.length).toBeGreaterThanOrEqual(32);
    expect(second.jwt.secret).toBe(first.jwt.secret);
    const file = join(dataDir, 'secrets', 'jwt_secret');
    expect(readFileSync(file, 'utf8')).toBe(first.jwt.secret);
    expect(statSync(file).mode & 0o077).toBe(0); // readable by the owner only
  });

  it('gives different installs different secrets', () => {
    const other = mkdtempSync(join(tmpdir(), 'loci-settings-'));
    try {
      expect(loadSettings({ LOCI_DATA_DIR: dataDir }).jwt.secret).not.toBe(
        loadSettings({ LOCI_DATA_DIR: other }).jwt.secret,
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('prefers JWT_SECRET from the environment and writes nothing', () => {
    const settings = loadSettings({ LOCI_DATA_DIR: dataDir, JWT_SECRET: 'x'.repeat(40) });
    expect(settings.jwt).toMatchObject({ secret: 'x'.repeat(40), secretSource: 'env' });
    expect(() => statSync(join(dataDir, 'secrets', 'jwt_secret'))).toThrow();
  });
});
