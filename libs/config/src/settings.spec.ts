import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultWorkerConcurrency, loadSettings } from './settings';

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

  it('ingests as many documents at once as the cores or the model slots need, unless told', () => {
    // Unset: the cores, or half the model slots (two calls a chunk), whichever is more, within the pool.
    const pg = { LOCI_DATA_DIR: dataDir, DATABASE_URL: 'postgres://loci@127.0.0.1:5432/loci' };
    expect(loadSettings(pg).ingest.workerConcurrency).toBe(
      defaultWorkerConcurrency({ cores: availableParallelism(), modelConcurrency: 8, poolMax: 10 }),
    );
    expect(loadSettings({ ...pg, LOCI_MODEL_CONCURRENCY: '40', LOCI_DB_POOL_MAX: '50' }).ingest.workerConcurrency).toBe(
      Math.max(availableParallelism(), 20),
    );
    expect(loadSettings({ ...pg, LOCI_MODEL_CONCURRENCY: '40', LOCI_DB_POOL_MAX: '3' }).ingest.workerConcurrency).toBe(3);
    // The embedded store (no DATABASE_URL) is one connection on the API's thread: two at most.
    expect(loadSettings({ LOCI_DATA_DIR: dataDir, LOCI_MODEL_CONCURRENCY: '40', LOCI_DB_POOL_MAX: '50' }).ingest.workerConcurrency).toBe(2);
    // An explicit value wins, whatever the machine; an empty one (a copied .env.example) is unset.
    expect(loadSettings({ LOCI_DATA_DIR: dataDir, LOCI_WORKER_CONCURRENCY: '1', LOCI_MODEL_CONCURRENCY: '40' }).ingest.workerConcurrency).toBe(1);
    expect(loadSettings({ LOCI_DATA_DIR: dataDir, LOCI_WORKER_CONCURRENCY: '' }).ingest.workerConcurrency).toBe(
      loadSettings({ LOCI_DATA_DIR: dataDir }).ingest.workerConcurrency,
    );
  });

  it.each([
    // cores, model slots, pool → documents at once
    [2, 8, 10, 4], // this machine's defaults: the model slots need more than the cores
    [8, 8, 10, 8], // the cores need more
    [32, 8, 10, 10], // never more than the pool's connections
    [1, 1, 10, 1],
    [2, 256, 500, 64], // the setting's own bound
  ])('derives %i cores, %i model slots, a pool of %i → %i documents at once', (cores, modelConcurrency, poolMax, expected) => {
    expect(defaultWorkerConcurrency({ cores, modelConcurrency, poolMax })).toBe(expected);
  });

  it.each([
    [2, 8, 10, 2], // this machine's embedded default: two, as before the derived default
    [1, 1, 10, 1],
    [16, 8, 10, 2],
  ])('on the embedded store derives %i cores, %i model slots, a pool of %i → %i documents at once', (cores, modelConcurrency, poolMax, expected) => {
    expect(defaultWorkerConcurrency({ cores, modelConcurrency, poolMax, embedded: true })).toBe(expected);
  });
});
