import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSettings, settingsSchema, SettingsError } from './settings.schema';

function problemsOf(env: Record<string, string>): string[] {
  try {
    parseSettings(env);
  } catch (error) {
    if (error instanceof SettingsError) return error.problems;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('settings schema', () => {
  it('runs with no settings at all, on the embedded defaults', () => {
    const settings = parseSettings({});
    expect(settings.PORT).toBe(3000);
    expect(settings.DATABASE_URL).toBeUndefined();
    expect(settings.REDIS_URL).toBeUndefined();
    expect(settings.LOCI_DATA_DIR).toBe('./data');
    expect(settings.LOCI_MIGRATE_ON_START).toBe(true);
  });

  it('treats empty values as unset, so a copied .env.example changes nothing', () => {
    const settings = parseSettings({ DATABASE_URL: '', REDIS_URL: '', JWT_SECRET: '' });
    expect(settings.DATABASE_URL).toBeUndefined();
    expect(settings.JWT_SECRET).toBeUndefined();
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['LOCI_MIGRATE_ON_START', 'maybe'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['REDIS_URL', 'localhost:6379'],
    ['JWT_SECRET', 'too-short'],
    ['LOG_LEVEL', 'loud'],
    ['LOCI_DB_POOL_MAX', '0'],
    ['LOCI_GB_KEYWORD_SEEDS', '0'],
    ['LOCI_GB_MAX_OUTPUT_TOKENS', '1.5'],
    ['LOCI_GB_MIN_SIMILARITY', '1.5'],
    ['LOCI_SLOT_LEASE_MS', '999'],
    ['LOCI_RESERVATION_LEASE_MS', '3600001'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('reports every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'x', LOCI_MIGRATE_ON_START: 'perhaps' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['LOCI_MIGRATE_ON_START', 'PORT']);
  });

  it('leases spend-control slots for 60 s and reservations for 10 min unless told otherwise', () => {
    const defaults = parseSettings({});
    expect([defaults.LOCI_SLOT_LEASE_MS, defaults.LOCI_RESERVATION_LEASE_MS]).toEqual([60_000, 600_000]);
    const short = parseSettings({ LOCI_SLOT_LEASE_MS: '2000', LOCI_RESERVATION_LEASE_MS: '3000' });
    expect([short.LOCI_SLOT_LEASE_MS, short.LOCI_RESERVATION_LEASE_MS]).toEqual([2_000, 3_000]);
  });

  it('leases a remember\'s text for 30 s, and lets a retry wait 2 min for it, unless told otherwise', () => {
    const defaults = parseSettings({});
    expect([defaults.LOCI_REMEMBER_LEASE_MS, defaults.LOCI_REMEMBER_WAIT_MS]).toEqual([30_000, 120_000]);
    expect(parseSettings({ LOCI_REMEMBER_WAIT_MS: '0' }).LOCI_REMEMBER_WAIT_MS).toBe(0);
    expect(problemsOf({ LOCI_REMEMBER_LEASE_MS: '10' })[0]).toMatch(/^LOCI_REMEMBER_LEASE_MS: expected an integer from 1000/);
  });

  it('cuts chunks of at most 300 tokens with 25 of overlap unless told otherwise (measured: docs/QUALITY.md, Chunking)', () => {
    const defaults = parseSettings({});
    expect([defaults.LOCI_CHUNK_TOKENS, defaults.LOCI_CHUNK_OVERLAP_TOKENS]).toEqual([300, 25]);
    const large = parseSettings({ LOCI_CHUNK_TOKENS: '1200', LOCI_CHUNK_OVERLAP_TOKENS: '100' });
    expect([large.LOCI_CHUNK_TOKENS, large.LOCI_CHUNK_OVERLAP_TOKENS]).toEqual([1200, 100]);
  });

  it('parses booleans', () => {
    expect(parseSettings({ LOCI_MIGRATE_ON_START: 'false' }).LOCI_MIGRATE_ON_START).toBe(false);
    expect(parseSettings({ LOCI_MIGRATE_ON_START: '1' }).LOCI_MIGRATE_ON_START).toBe(true);
  });

  it('requires the bootstrap operator email and password together', () => {
    expect(problemsOf({ LOCI_BOOTSTRAP_OPERATOR_EMAIL: 'op@example.com' })[0]).toMatch(
      /^LOCI_BOOTSTRAP_OPERATOR_PASSWORD: /,
    );
    expect(problemsOf({ LOCI_BOOTSTRAP_OPERATOR_EMAIL: 'not-an-email', LOCI_BOOTSTRAP_OPERATOR_PASSWORD: 'long-enough-pw' })[0]).toMatch(
      /^LOCI_BOOTSTRAP_OPERATOR_EMAIL: /,
    );
  });

  it('reads Redis Cluster seed nodes, rejects a malformed list, and refuses them beside REDIS_URL', () => {
    expect(parseSettings({ REDIS_CLUSTER_NODES: '127.0.0.1:7001, redis://:pw@10.0.0.2:7002' }).REDIS_CLUSTER_NODES).toEqual([
      '127.0.0.1:7001',
      'redis://:pw@10.0.0.2:7002',
    ]);
    expect(problemsOf({ REDIS_CLUSTER_NODES: 'localhost' })[0]).toMatch(/^REDIS_CLUSTER_NODES: expected comma-separated host:port/);
    expect(problemsOf({ REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'b:7001' })).toEqual([
      expect.stringMatching(/^REDIS_CLUSTER_NODES: set either REDIS_URL .* or REDIS_CLUSTER_NODES .*, not both$/),
    ]);
  });

  it('reads DATABASE_READ_URL as a list of replicas, rejects a malformed one, and refuses it without DATABASE_URL', () => {
    const primary = 'postgres://loci@primary:5432/loci';
    expect(parseSettings({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://r1/loci, postgresql://r2:5433/loci,postgres://r1/loci' }).DATABASE_READ_URL).toEqual([
      'postgres://r1/loci',
      'postgresql://r2:5433/loci',
    ]);
    expect(problemsOf({ DATABASE_URL: primary, DATABASE_READ_URL: 'postgres://r1/loci,mysql://r2/loci' })[0]).toMatch(/^DATABASE_READ_URL: expected comma-separated postgres:\/\//);
    expect(problemsOf({ DATABASE_READ_URL: 'postgres://r1/loci' })).toEqual([expect.stringMatching(/^DATABASE_READ_URL: replicas serve reads beside a primary; set DATABASE_URL too/)]);
    expect(problemsOf({ DATABASE_URL: primary, LOCI_REPLICA_MAX_LAG_MS: '0' })[0]).toMatch(/^LOCI_REPLICA_MAX_LAG_MS: /);
    expect(problemsOf({ DATABASE_SESSION_URL: primary })).toEqual([expect.stringMatching(/^DATABASE_SESSION_URL: the direct connection beside a pooled DATABASE_URL; set DATABASE_URL too/)]);
  });

  it('requires JWT_SECRET and LOCI_ENCRYPTION_KEY in production (each container would generate its own), not in development', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      expect.stringMatching(/^JWT_SECRET: required when NODE_ENV=production/),
      expect.stringMatching(/^LOCI_ENCRYPTION_KEY: required when NODE_ENV=production/),
    ]);
    const secrets = { JWT_SECRET: 'x'.repeat(32), LOCI_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };
    expect(parseSettings({ NODE_ENV: 'production', ...secrets }).NODE_ENV).toBe('production');
    expect(parseSettings({ NODE_ENV: 'development' }).JWT_SECRET).toBeUndefined();
  });

  it('reads the trace settings: off by default, a collector URL, headers, a sample ratio', () => {
    const off = parseSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect([off.OTEL_EXPORTER_OTLP_ENDPOINT, off.OTEL_EXPORTER_OTLP_HEADERS, off.LOCI_TRACE_SAMPLE_RATIO]).toEqual([undefined, undefined, 1]);
    const on = parseSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-team=loci',
      LOCI_TRACE_SAMPLE_RATIO: '0.25',
    });
    expect(on.OTEL_EXPORTER_OTLP_HEADERS).toEqual({ authorization: 'Bearer abc', 'x-team': 'loci' });
    expect(on.LOCI_TRACE_SAMPLE_RATIO).toBe(0.25);
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })[0]).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT: expected an http/);
    expect(problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })[0]).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS: expected key=value/);
    expect(problemsOf({ LOCI_TRACE_SAMPLE_RATIO: '2' })[0]).toMatch(/^LOCI_TRACE_SAMPLE_RATIO: expected a number from 0 to 1/);
  });

  it('documents every variable in .env.example, each with a comment, and nothing else', () => {
    const lines = readFileSync(join(__dirname, '../../../.env.example'), 'utf8').split('\n');
    const documented = new Map<string, string>();
    lines.forEach((line, index) => {
      const match = line.match(/^([A-Z][A-Z0-9_]*)=/);
      if (match) documented.set(match[1], lines[index - 1] ?? '');
    });
    expect([...documented.keys()].sort()).toEqual(Object.keys(settingsSchema.shape).sort());
    for (const [name, previousLine] of documented) {
      expect({ name, comment: previousLine.startsWith('# ') }).toEqual({ name, comment: true });
    }
  });
});
