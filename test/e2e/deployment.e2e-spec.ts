import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';

const ROOT = join(__dirname, '../..');
const BUILT_API = join(ROOT, 'dist/apps/api/src/main.js');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface ComposeService {
  image?: string;
  build?: unknown;
  restart?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  command?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}

/**
 * The image and the compose stack as an operator runs them: there is no Docker engine here,
 * so these check what made the container die at boot (secrets, data dir, start order) in the
 * files themselves, and boot the built API the way the image does.
 */
describe('deployment: Dockerfile and docker-compose.yml', () => {
  const dockerfile = read('Dockerfile');
  // Compose reads YAML merge keys (`<<: *anchor`); js-yaml 5 resolves them only when asked.
  const compose = load(read('docker-compose.yml'), { schema: CORE_SCHEMA.withTags(mergeTag) }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  const { api, worker, postgres, redis } = compose.services;

  it('builds and runs on Node 24 LTS as the unprivileged user, with its data dir a volume that user owns', () => {
    const bases = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]);
    expect(bases).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    expect(dockerfile).toMatch(/^ENV [^\n]*\\\n\s+LOCI_DATA_DIR=\/app\/data/m);
    expect(dockerfile).toMatch(/chown node:node \/app\/data/);
    expect(dockerfile).toMatch(/^VOLUME \["\/app\/data"\]/m);
    // The volume is owned before USER switches, and the chown comes before VOLUME (later changes are discarded).
    expect(dockerfile.indexOf('chown node:node')).toBeLessThan(dockerfile.indexOf('VOLUME'));
    expect(dockerfile.indexOf('VOLUME')).toBeLessThan(dockerfile.indexOf('USER node'));
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
  });

  it('requires the database password and both secrets from .env, shared by API and worker, hard-coding none', () => {
    expect(postgres.environment?.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?.+\}$/);
    for (const service of [api, worker]) {
      expect(service.environment?.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?.+\}$/);
      expect(service.environment?.LOCI_ENCRYPTION_KEY).toMatch(/^\$\{LOCI_ENCRYPTION_KEY:\?.+\}$/);
      expect(service.environment?.DATABASE_URL).toMatch(/^postgres:\/\/loci:\$\{POSTGRES_PASSWORD:\?.+\}@postgres:5432\/loci$/);
      expect(service.environment?.NODE_ENV).toBe('production');
    }
  });

  it('keeps the API data on a named volume, checks readiness on /readyz, and starts the worker once the API is healthy', () => {
    expect(api.volumes).toContain('apidata:/app/data');
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(['pgdata', 'apidata']));
    expect(api.healthcheck?.test?.join(' ')).toContain('http://127.0.0.1:3000/readyz');
    // Ready means migrated: the worker (which does not migrate) waits for it.
    expect(worker.depends_on).toEqual({ api: { condition: 'service_healthy' } });
    expect(worker.environment?.LOCI_MIGRATE_ON_START).toBe('false');
    expect(api.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    for (const [name, service] of Object.entries(compose.services)) expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
  });

  it('runs Redis with its append-only file on a named volume, so a restart keeps its counters', () => {
    const command = redis.command ?? [];
    expect(command[command.indexOf('--appendonly') + 1]).toBe('yes');
    expect(redis.volumes).toContain('redisdata:/data');
    expect(Object.keys(compose.volumes)).toContain('redisdata');
  });

  it('keeps .env, local data and bench data out of the build context', () => {
    const ignored = read('.dockerignore').split('\n').map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.env', '.env.*', 'data', 'bench/data', 'bench/results', 'eval/.cache', 'node_modules', 'dist']));
  });

  it('documents the compose-only setting beside the others', () => {
    expect(read('.env.example')).toMatch(/^# .+\n# POSTGRES_PASSWORD=/m);
    expect(redis.restart).toBe('unless-stopped');
  });
});

describe('deployment: the built API refuses to boot without its secrets, naming the variable', () => {
  let dataRoot: string;

  beforeAll(() => {
    // CI builds before testing (.ci/run); a fresh checkout may not have.
    if (!existsSync(BUILT_API)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'pipe', timeout: 600_000 });
    dataRoot = mkdtempSync(join(tmpdir(), 'loci-deploy-'));
  }, 660_000);
  afterAll(() => rmSync(dataRoot, { recursive: true, force: true }));

  function boot(env: Record<string, string>, asUid?: number) {
    const run = spawnSync(process.execPath, [BUILT_API], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...env },
      encoding: 'utf8',
      timeout: 60_000,
      ...(asUid === undefined ? {} : { uid: asUid, gid: asUid }),
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}`, spawnError: run.error };
  }

  const noStackTrace = (output: string) => expect(output).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

  it('NODE_ENV=production without JWT_SECRET and LOCI_ENCRYPTION_KEY: exit 78 and a message naming both', () => {
    const { status, output } = boot({ NODE_ENV: 'production', LOCI_DATA_DIR: join(dataRoot, 'prod') });
    expect(status).toBe(78);
    expect(output).toMatch(/^\s+- JWT_SECRET: required when NODE_ENV=production/m);
    expect(output).toMatch(/^\s+- LOCI_ENCRYPTION_KEY: required when NODE_ENV=production/m);
    noStackTrace(output);
    expect(existsSync(join(dataRoot, 'prod', 'secrets'))).toBe(false); // nothing generated to differ between containers
  });

  it('a data dir it cannot write (an image running as USER node): exit 78 naming JWT_SECRET and LOCI_DATA_DIR, no EACCES stack', () => {
    let dataDir = join(dataRoot, 'read-only');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o555);
    // Root writes anywhere, so as root the API runs as `nobody`, as the image runs as `node`.
    const asRoot = process.getuid?.() === 0;
    let expectedCode = 'EACCES';
    let run = boot({ NODE_ENV: 'development', LOCI_DATA_DIR: dataDir }, asRoot ? 65534 : undefined);
    if (run.spawnError) {
      // `nobody` cannot run this node (e.g. a Node 24 installed under /root for CI): a data dir
      // below a regular file is as unwritable to root, and takes the same path.
      dataDir = join(dataRoot, 'not-a-dir');
      writeFileSync(dataDir, '');
      dataDir = join(dataDir, 'data');
      expectedCode = 'ENOTDIR';
      run = boot({ NODE_ENV: 'development', LOCI_DATA_DIR: dataDir });
    }
    expect(run.status).toBe(78);
    expect(run.output).toContain(`JWT_SECRET: not set, and it could not be kept in ${join(dataDir, 'secrets', 'jwt_secret')} (${expectedCode})`);
    expect(run.output).toContain(`set JWT_SECRET, or make LOCI_DATA_DIR (${dataDir}) writable`);
    noStackTrace(run.output);
  });
});
