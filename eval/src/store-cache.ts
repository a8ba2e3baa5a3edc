import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';

/**
 * Ingesting the whole development set takes many minutes, so the ingested store is kept and
 * reused while nothing that decides what ingestion writes has changed. The cache key hashes:
 * the passages ingested, the source of ingestion (libs/ingest, libs/llm: chunking, the local
 * extractor and embedder), the migrations, the LOCI_* settings that reach ingestion, and the
 * kind of store. A store is usable only once its manifest is written, after every document
 * was processed; a run that died half-way leaves no manifest and its store is built again.
 */
export const INGESTION_SOURCES = ['libs/ingest/src', 'libs/llm/src', 'migrations'];

export type StoreKind = 'pglite' | 'postgres';

export interface StoreManifest {
  key: string;
  store: StoreKind;
  corpus_sha256: string;
  ingestion_fingerprint: string;
  created_at: string;
  tenant_id: string;
  user: { email: string; password: string };
  /** Postgres only: the database the store lives in. */
  database?: string;
  ingestion: IngestionSummary;
  /** gb surface: the user whose memory holds the texts, and each text's artifact id by its name. */
  gb?: { user_id: string; artifacts: Record<string, number> };
}

export interface IngestionSummary {
  documents: number;
  processed: number;
  failed: number;
  chunks: number;
  /** From the first upload to the last document processed. */
  elapsed_s: number;
  passages_per_s: number;
  failures: Array<{ name: string; error: string | null }>;
}

export interface StoreLocation {
  key: string;
  store: StoreKind;
  /** LOCI_DATA_DIR: the PGlite data (pglite store) and the JWT secret its tokens are signed with. */
  dataDir: string;
  databaseUrl?: string;
  database?: string;
  manifest?: StoreManifest;
  /** True when --reuse took a store built by other ingestion code than this checkout's. */
  stale: boolean;
}

/** Hash of every file under the given folders of the repository (tests excluded), by path. */
export function ingestionFingerprint(repoRoot: string, tuning: Record<string, string>): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!/\.(spec|e2e-spec|contract-spec)\.ts$/.test(name)) hash.update(relative(repoRoot, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const folder of INGESTION_SOURCES) if (existsSync(join(repoRoot, folder))) walk(join(repoRoot, folder));
  hash.update(JSON.stringify(tuning));
  return hash.digest('hex');
}

export function cacheKey(corpusSha: string, fingerprint: string, store: StoreKind): string {
  return createHash('sha256').update(`${corpusSha}|${fingerprint}|${store}`).digest('hex').slice(0, 16);
}

const manifestPath = (dir: string) => join(dir, 'manifest.json');

function readManifest(dir: string): StoreManifest | undefined {
  try {
    return JSON.parse(readFileSync(manifestPath(dir), 'utf8')) as StoreManifest;
  } catch {
    return undefined;
  }
}

export function writeManifest(location: StoreLocation, manifest: StoreManifest): void {
  writeFileSync(manifestPath(location.dataDir), `${JSON.stringify(manifest, null, 2)}\n`);
}

export interface LocateOptions {
  cacheDir: string;
  store: StoreKind;
  corpusSha: string;
  fingerprint: string;
  /** The server PostgreSQL stores go to (a database per key is created on it). */
  baseDatabaseUrl?: string;
  /** Take the newest finished store of the same passages even if ingestion code changed. */
  reuse: boolean;
  /** Ingest again even if a finished store exists. */
  fresh: boolean;
}

/** What a run's options say about its store (every eval surface takes the same ones). */
export interface StoreChoice {
  cacheDir: string;
  store: StoreKind;
  databaseUrl?: string;
  reuse: boolean;
  fresh: boolean;
}

/** locateStore for a run's options and what it ingests. */
export function locateStoreFor(choice: StoreChoice, corpusSha: string, fingerprint: string): Promise<StoreLocation> {
  return locateStore({
    cacheDir: choice.cacheDir,
    store: choice.store,
    corpusSha,
    fingerprint,
    baseDatabaseUrl: choice.databaseUrl,
    reuse: choice.reuse,
    fresh: choice.fresh,
  });
}

/** The manifest of a store just ingested, written once every document is processed. */
export function finishedManifest(
  location: StoreLocation,
  ingested: { corpusSha: string; fingerprint: string; tenant: { tenantId: string; user: { email: string; password: string } }; ingestion: IngestionSummary },
  extra: Pick<StoreManifest, 'gb'> = {},
): StoreManifest {
  const manifest: StoreManifest = {
    key: location.key,
    store: location.store,
    corpus_sha256: ingested.corpusSha,
    ingestion_fingerprint: ingested.fingerprint,
    created_at: new Date().toISOString(),
    tenant_id: ingested.tenant.tenantId,
    user: ingested.tenant.user,
    database: location.database,
    ingestion: ingested.ingestion,
    ...extra,
  };
  writeManifest(location, manifest);
  return manifest;
}

/** Where this run's store is, and its manifest when it is finished and may be reused. */
export async function locateStore(options: LocateOptions): Promise<StoreLocation> {
  const key = cacheKey(options.corpusSha, options.fingerprint, options.store);
  mkdirSync(options.cacheDir, { recursive: true });
  if (options.reuse && !options.fresh) {
    const candidates = readdirSync(options.cacheDir)
      .map((name) => ({ dir: join(options.cacheDir, name), manifest: readManifest(join(options.cacheDir, name)) }))
      .filter((c) => c.manifest && c.manifest.corpus_sha256 === options.corpusSha && c.manifest.store === options.store)
      .sort((a, b) => b.manifest!.created_at.localeCompare(a.manifest!.created_at));
    const exact = candidates.find((c) => c.manifest!.key === key);
    const chosen = exact ?? candidates[0];
    if (chosen) return located(options, chosen.manifest!.key, chosen.dir, chosen.manifest, chosen.manifest!.key !== key);
  }
  const dir = join(options.cacheDir, `hotpotqa-${options.store}-${key}`);
  const manifest = options.fresh ? undefined : readManifest(dir);
  if (!manifest) {
    // Unfinished or unwanted: start from nothing.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    if (options.store === 'postgres') await recreateDatabase(options.baseDatabaseUrl!, databaseName(key));
  }
  return located(options, key, dir, manifest, false);
}

function located(options: LocateOptions, key: string, dir: string, manifest: StoreManifest | undefined, stale: boolean): StoreLocation {
  if (options.store === 'pglite') return { key, store: 'pglite', dataDir: dir, manifest, stale };
  const database = manifest?.database ?? databaseName(key);
  return { key, store: 'postgres', dataDir: dir, database, databaseUrl: withDatabase(options.baseDatabaseUrl!, database), manifest, stale };
}

const databaseName = (key: string) => `loci_eval_${key}`;

function withDatabase(baseUrl: string, database: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function recreateDatabase(baseUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${database}`);
  } finally {
    await client.end();
  }
}

/** A password for the eval's dashboard user, new for each store. */
export const newPassword = () => randomBytes(12).toString('hex');
