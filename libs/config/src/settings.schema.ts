import ipaddr from 'ipaddr.js';
import { z } from 'zod';

/**
 * Every environment variable Loci reads, in one schema. `.env.example` documents each key;
 * `settings.schema.spec.ts` checks the two stay in step.
 */

const booleanFromEnv = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], {
      error: (issue) => `expected true or false, got ${JSON.stringify(issue.input)}`,
    })
    .optional()
    .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes'].includes(value)));

const integerFromEnv = <F extends number | undefined>(fallback: F, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx): number | F => {
      if (value === undefined || value === '') return fallback;
      const parsed = Number(value);
      if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
        ctx.addIssue({ code: 'custom', message: `expected an integer from ${min} to ${max}, got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return parsed;
    });

const emptyAsUndefined = (value: unknown) => (value === '' ? undefined : value);

const postgresUrl = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^postgres(ql)?:\/\/.+/, { message: 'expected a postgres:// or postgresql:// URL' })
    .optional(),
);

/**
 * Streaming replicas for reads (DATABASE_READ_URL), comma-separated postgres:// URLs. Each is
 * a hot standby of DATABASE_URL's primary (libs/db read-router.ts); duplicates are one.
 */
const postgresUrls = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .transform((value) => [...new Set(value.split(',').map((url) => url.trim()).filter(Boolean))])
    .refine((urls) => urls.length > 0 && urls.every((url) => /^postgres(ql)?:\/\/.+/.test(url)), {
      message: 'expected comma-separated postgres:// or postgresql:// URLs',
    })
    .optional(),
);

const redisUrl = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^rediss?:\/\/.+/, { message: 'expected a redis:// or rediss:// URL' })
    .optional(),
);

/**
 * Seed nodes of a Redis Cluster, comma-separated: `host:port`, or `redis://[user:password@]host:port`
 * (`rediss://` for TLS); credentials and TLS of the first entry apply to every node.
 */
const redisClusterNodes = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .transform((value) => value.split(',').map((node) => node.trim()).filter(Boolean))
    .refine((nodes) => nodes.length > 0 && nodes.every((node) => /^((rediss?:\/\/)([^@/]*@)?)?[^\s:/@]+:\d{1,5}\/?$/.test(node)), {
      message: 'expected comma-separated host:port or redis://host:port seed nodes',
    })
    .optional(),
);

const optionalString = z.preprocess(emptyAsUndefined, z.string().min(1).optional());
const httpUrl = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^https?:\/\/.+/, { message: 'expected an http:// or https:// URL' })
    .optional(),
);
/** `key=value,key=value` (values percent-encoded), as OpenTelemetry's OTEL_EXPORTER_OTLP_HEADERS. */
const otlpHeaders = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .transform((value, ctx) => {
      const headers: Record<string, string> = {};
      for (const pair of value.split(',').map((part) => part.trim()).filter(Boolean)) {
        const at = pair.indexOf('=');
        const name = at > 0 ? pair.slice(0, at).trim() : '';
        if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
          ctx.addIssue({ code: 'custom', message: 'expected key=value pairs separated by commas' });
          return z.NEVER;
        }
        try {
          headers[name] = decodeURIComponent(pair.slice(at + 1).trim());
        } catch {
          ctx.addIssue({ code: 'custom', message: `the value of ${name} is not percent-encoded correctly` });
          return z.NEVER;
        }
      }
      return headers;
    })
    .optional(),
);
/** `provider:model`, e.g. `anthropic:claude-haiku-4-5`, `openai:deepseek/deepseek-chat`, `local:local-extract`. */
export const MODEL_SPEC_PATTERN = /^(anthropic|openai|local):[A-Za-z0-9][A-Za-z0-9._/:@-]{0,127}$/;
const modelSpec = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(MODEL_SPEC_PATTERN, { message: 'expected provider:model with provider anthropic, openai or local' })
    .optional(),
);

/**
 * Which proxies' X-Forwarded-For to believe for the client address (login throttling counts by
 * it): false (none, the default), true (any: only behind a proxy that overwrites the header), a
 * number of hops, or a comma list of addresses, CIDR ranges and Express's names (loopback,
 * linklocal, uniquelocal).
 */
const trustProxy = z
  .string()
  .optional()
  .transform((value, ctx): boolean | number | string[] => {
    const text = value?.trim() ?? '';
    if (text === '' || text === 'false') return false;
    if (text === 'true') return true;
    if (/^\d+$/.test(text)) return Number(text);
    const entries = text.split(',').map((entry) => entry.trim());
    const named = ['loopback', 'linklocal', 'uniquelocal'];
    const bad = entries.filter((entry) => !named.includes(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `expected false, true, a hop count or addresses/CIDR ranges, got ${JSON.stringify(bad.join(','))}` });
      return z.NEVER;
    }
    return entries;
  });

/** Browser origins allowed to call the API cross-origin: `scheme://host[:port]`, comma-separated; none by default. */
const corsOrigins = z
  .string()
  .optional()
  .transform((value, ctx): string[] => {
    const origins = (value ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
    const bad = origins.filter((origin) => {
      try {
        const url = new URL(origin);
        return !['http:', 'https:'].includes(url.protocol) || url.origin !== origin;
      } catch {
        return true;
      }
    });
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `expected origins like https://app.example.com (no path, no wildcard), got ${JSON.stringify(bad.join(','))}` });
      return z.NEVER;
    }
    return origins;
  });

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Where clients reach Loci (`scheme://host[:port]`): the issuer of MCP's OAuth and the base of
 * the metadata's URLs. HTTPS, except on a loopback host (OAuth 2.1 asks an authorization server
 * for TLS; a local client talks to localhost). Unset: taken from each request.
 */
const publicUrl = z
  .string()
  .optional()
  .transform((value, ctx): string | undefined => {
    const text = value?.trim().replace(/\/+$/, '') ?? '';
    if (text === '') return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: `expected an origin like https://loci.example.com, got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== text) {
      ctx.addIssue({ code: 'custom', message: `expected an origin like https://loci.example.com (no path, query or credentials), got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.includes(url.hostname)) {
      ctx.addIssue({ code: 'custom', message: `must be https:// (http:// only on localhost), got ${JSON.stringify(text)}` });
      return z.NEVER;
    }
    return text;
  });

export const settingsSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(['development', 'production', 'test']).default('development')),
  PORT: integerFromEnv(3000, 0, 65535),
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  LOG_FORMAT: z.preprocess(emptyAsUndefined, z.enum(['auto', 'json', 'pretty']).default('auto')),
  DATABASE_URL: postgresUrl,
  // A direct connection to the primary when DATABASE_URL goes through a transaction-mode pooler.
  DATABASE_SESSION_URL: postgresUrl,
  DATABASE_READ_URL: postgresUrls,
  // A replica further behind than this is skipped for reads until it catches up.
  LOCI_REPLICA_MAX_LAG_MS: integerFromEnv(1_000, 10, 600_000),
  // How long a read that must see the client's own write waits for a replica, then the primary.
  LOCI_REPLICA_MAX_WAIT_MS: integerFromEnv(200, 0, 10_000),
  LOCI_DB_POOL_MAX: integerFromEnv(10, 1, 500),
  LOCI_DB_ACQUIRE_TIMEOUT_MS: integerFromEnv(10_000, 100, 600_000),
  LOCI_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./data')),
  LOCI_MIGRATE_ON_START: booleanFromEnv(true),
  REDIS_URL: redisUrl,
  REDIS_CLUSTER_NODES: redisClusterNodes,
  LOCI_REDIS_COMMAND_TIMEOUT_MS: integerFromEnv(5_000, 50, 60_000),
  JWT_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
  ),
  JWT_TTL_SECONDS: integerFromEnv(3600, 60, 60 * 60 * 24 * 30),
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: httpUrl,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: httpUrl,
  LOCI_EXTRACT_MODEL: modelSpec,
  LOCI_SUMMARIZE_MODEL: modelSpec,
  LOCI_KEYWORDS_MODEL: modelSpec,
  LOCI_ANSWER_MODEL: modelSpec,
  LOCI_QUERY_MODEL: modelSpec,
  LOCI_DETECT_GEO_MODEL: modelSpec,
  LOCI_EMBED_MODEL: modelSpec,
  LOCI_OPENAI_EMBED_DIMENSIONS_PARAM: booleanFromEnv(true),
  LOCI_OPENAI_REASONING_EFFORT: booleanFromEnv(false),
  LOCI_LOCAL_EMBEDDING_DIM: integerFromEnv(1024, 16, 1024),
  LOCI_LLM_TIMEOUT_MS: integerFromEnv(60_000, 1_000, 600_000),
  LOCI_EXTRACT_TIMEOUT_MS: integerFromEnv(120_000, 1_000, 600_000),
  LOCI_EMBED_TIMEOUT_MS: integerFromEnv(30_000, 1_000, 600_000),
  LOCI_LLM_MAX_RETRIES: integerFromEnv(2, 0, 10),
  LOCI_MODEL_CONCURRENCY: integerFromEnv(8, 1, 256),
  LOCI_SLOT_LEASE_MS: integerFromEnv(60_000, 1_000, 3_600_000),
  LOCI_RESERVATION_LEASE_MS: integerFromEnv(600_000, 1_000, 3_600_000),
  // A rate refusal is answered when its client could retry, at most this much later (RequestRates).
  LOCI_RATE_REFUSAL_HOLD_MS: integerFromEnv(1_000, 0, 10_000),
  LOCI_ENTITY_MATCH_THRESHOLD: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().min(0).max(1).default(0.75),
  ),
  LOCI_QUERY_MIN_SIMILARITY: z.preprocess(emptyAsUndefined, z.coerce.number().min(-1).max(1).default(0.15)),
  LOCI_BM25_POSTINGS_PER_TERM: integerFromEnv(2000, 1, 10_000_000),
  // Unset: one per core and one more (settings.ts).
  LOCI_QUESTIONS_AT_ONCE: integerFromEnv(undefined, 1, 500),
  LOCI_QUESTION_TURN_LINGER_MS: integerFromEnv(1000, 0, 60_000),
  LOCI_QUESTION_PAUSE_MAX_MS: integerFromEnv(500, 0, 60_000),
  LOCI_QUESTION_STATEMENTS_AT_ONCE: integerFromEnv(0, 0, 10_000),
  // gb query (gb-query-contract.md): every number of the contract, its value by default.
  LOCI_GB_MAX_TERMS: integerFromEnv(12, 1, 100),
  LOCI_GB_MIN_TERM_LENGTH: integerFromEnv(2, 1, 50),
  LOCI_GB_WHOLE_NAME_SCORE: integerFromEnv(5, 0, 1000),
  LOCI_GB_TERM_IN_NAME_SCORE: integerFromEnv(3, 0, 1000),
  LOCI_GB_TERM_IN_DESCRIPTION_SCORE: integerFromEnv(1, 0, 1000),
  LOCI_GB_KEYWORD_SEEDS: integerFromEnv(10, 1, 1000),
  LOCI_GB_SIMILAR_ENTITIES: integerFromEnv(10, 1, 1000),
  LOCI_GB_SIMILAR_EDGES: integerFromEnv(10, 1, 1000),
  LOCI_GB_SIMILAR_CHUNKS: integerFromEnv(5, 1, 1000),
  LOCI_GB_SIMILAR_SUMMARIES: integerFromEnv(5, 1, 1000),
  LOCI_GB_MIN_SIMILARITY: z.preprocess(emptyAsUndefined, z.coerce.number().min(-1).max(1).default(0.75)),
  LOCI_GB_FALLBACK_SEEDS: integerFromEnv(25, 1, 1000),
  LOCI_GB_MAX_EXPANDED_EDGES: integerFromEnv(100, 1, 10_000),
  LOCI_GB_PASSAGES_WITH_TEXT: integerFromEnv(3, 0, 100),
  LOCI_GB_PASSAGES_SUMMARY_ONLY: integerFromEnv(5, 0, 100),
  LOCI_GB_MAX_OUTPUT_TOKENS: integerFromEnv(2048, 16, 65_536),
  LOCI_GB_LEXICAL_CHUNKS: integerFromEnv(8, 0, 1000),
  LOCI_GEO_ENABLED: booleanFromEnv(false),
  LOCI_GEO_RADIUS_KM: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .refine((km) => km > 0 && km <= 20015, 'expected a number of km greater than 0 and at most 20015')
      .default(50),
  ),
  LOCI_CHUNK_TOKENS: integerFromEnv(300, 100, 8000),
  LOCI_CHUNK_OVERLAP_TOKENS: integerFromEnv(25, 0, 1000),
  LOCI_RUN_WORKER: booleanFromEnv(true),
  LOCI_MOVE_LOCAL_VECTORS: booleanFromEnv(true),
  LOCI_BULK_LOAD_GRAPHS_MAX: integerFromEnv(50, 0, 10_000),
  LOCI_BULK_INDEX_MEMORY_MB: integerFromEnv(512, 16, 65_536),
  LOCI_BULK_LOAD_IDLE_MS: integerFromEnv(900_000, 1_000, 7 * 86_400_000),
  LOCI_SHUTDOWN_GRACE_MS: integerFromEnv(30_000, 0, 3_600_000),
  // Unset: derived from the cores and the model slots (settings.ts, defaultWorkerConcurrency).
  LOCI_WORKER_CONCURRENCY: integerFromEnv(undefined, 1, 64),
  LOCI_CPU_THREADS: integerFromEnv(2, 1, 32),
  LOCI_CPU_THREAD_HEAP_MB: integerFromEnv(256, 32, 16_384),
  // Nice value of each CPU thread (Linux, per thread): batch work yields to requests (thread-priority.ts).
  LOCI_CPU_THREAD_NICE: integerFromEnv(10, 0, 19),
  // Longest pause of batch CPU work while questions run, in ms (0 = none): questions-in-flight.ts.
  LOCI_BATCH_PAUSE_MAX_MS: integerFromEnv(100, 0, 10_000),
  LOCI_CPU_TASK_TIMEOUT_MS: integerFromEnv(120_000, 1_000, 3_600_000),
  LOCI_UPLOAD_MAX_TEXT_CHARS: integerFromEnv(5_000_000, 1_000, 100_000_000),
  LOCI_UPLOAD_MAX_PDF_PAGES: integerFromEnv(2_000, 1, 100_000),
  // html-to-text recurses once per level: much deeper than this overflows a thread's stack.
  LOCI_UPLOAD_MAX_HTML_DEPTH: integerFromEnv(256, 16, 1_000),
  LOCI_UPLOAD_READ_TIMEOUT_MS: integerFromEnv(30_000, 1_000, 3_600_000),
  LOCI_REMEMBER_LEASE_MS: integerFromEnv(30_000, 1_000, 3_600_000),
  LOCI_REMEMBER_WAIT_MS: integerFromEnv(120_000, 0, 3_600_000),
  LOCI_PRICES_FILE: optionalString,
  LOCI_ENCRYPTION_KEY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((value) => Buffer.from(value, 'base64').length === 32, { message: 'expected 32 bytes, base64-encoded' })
      .optional(),
  ),
  LOCI_BOOTSTRAP_OPERATOR_EMAIL: z.preprocess(emptyAsUndefined, z.email({ message: 'expected an email address' }).optional()),
  LOCI_BOOTSTRAP_OPERATOR_PASSWORD: z.preprocess(
    emptyAsUndefined,
    z.string().min(12, { message: 'must be at least 12 characters' }).optional(),
  ),
  // GET /metrics: off (404) unless a token is set; Prometheus then sends it as a bearer token.
  LOCI_METRICS_TOKEN: z.preprocess(emptyAsUndefined, z.string().min(16, { message: 'must be at least 16 characters' }).optional()),
  // Traces: off unless a collector is named. The standard OpenTelemetry names, so an environment
  // already set up for OpenTelemetry needs nothing Loci-specific.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  OTEL_EXPORTER_OTLP_HEADERS: otlpHeaders,
  OTEL_SERVICE_NAME: z.preprocess(emptyAsUndefined, z.string().regex(/^[\x21-\x7e]{1,100}$/, { message: 'expected a name without spaces' }).optional()),
  LOCI_TRACE_SAMPLE_RATIO: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '') return 1;
      const parsed = Number(value);
      if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1) {
        ctx.addIssue({ code: 'custom', message: `expected a number from 0 to 1, got ${JSON.stringify(value)}` });
        return z.NEVER;
      }
      return parsed;
    }),
  // Login throttling: failed logins counted per email and per client address in a fixed window.
  LOCI_LOGIN_WINDOW_SECONDS: integerFromEnv(900, 1, 86_400),
  LOCI_LOGIN_MAX_FAILURES_PER_EMAIL: integerFromEnv(10, 1, 100_000),
  LOCI_LOGIN_MAX_FAILURES_PER_ADDRESS: integerFromEnv(100, 0, 1_000_000),
  LOCI_LOGIN_BACKOFF_AFTER_FAILURES: integerFromEnv(5, 0, 100_000),
  LOCI_LOGIN_BACKOFF_BASE_MS: integerFromEnv(1_000, 1, 3_600_000),
  // HTTP hygiene.
  LOCI_TRUST_PROXY: trustProxy,
  LOCI_CORS_ORIGINS: corsOrigins,
  LOCI_PUBLIC_URL: publicUrl,
  LOCI_HSTS_MAX_AGE_SECONDS: integerFromEnv(0, 0, 63_072_000),
  LOCI_HTTP_REQUEST_TIMEOUT_MS: integerFromEnv(60_000, 1_000, 3_600_000),
  LOCI_HTTP_HEADERS_TIMEOUT_MS: integerFromEnv(20_000, 1_000, 600_000),
  LOCI_API_DOCS: booleanFromEnv(true),
});

export type RawSettings = z.output<typeof settingsSchema>;

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'SettingsError';
  }
}

/** Parses the environment; throws a SettingsError naming every bad variable. */
export function parseSettings(env: Record<string, string | undefined>): RawSettings {
  const result = settingsSchema.safeParse(env);
  if (!result.success) {
    throw new SettingsError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const settings = result.data;
  const hasEmail = settings.LOCI_BOOTSTRAP_OPERATOR_EMAIL !== undefined;
  const hasPassword = settings.LOCI_BOOTSTRAP_OPERATOR_PASSWORD !== undefined;
  if (hasEmail !== hasPassword) {
    throw new SettingsError([
      `${hasEmail ? 'LOCI_BOOTSTRAP_OPERATOR_PASSWORD' : 'LOCI_BOOTSTRAP_OPERATOR_EMAIL'}: must be set together with ${
        hasEmail ? 'LOCI_BOOTSTRAP_OPERATOR_EMAIL' : 'LOCI_BOOTSTRAP_OPERATOR_PASSWORD'
      }`,
    ]);
  }
  if (settings.REDIS_URL !== undefined && settings.REDIS_CLUSTER_NODES !== undefined) {
    throw new SettingsError(['REDIS_CLUSTER_NODES: set either REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both']);
  }
  if (settings.DATABASE_SESSION_URL !== undefined && settings.DATABASE_URL === undefined) {
    throw new SettingsError(['DATABASE_SESSION_URL: the direct connection beside a pooled DATABASE_URL; set DATABASE_URL too']);
  }
  if (settings.DATABASE_READ_URL !== undefined && settings.DATABASE_URL === undefined) {
    throw new SettingsError(['DATABASE_READ_URL: replicas serve reads beside a primary; set DATABASE_URL too (the embedded store has none)']);
  }
  const missing = missingProductionSecrets(settings);
  if (missing.length > 0) throw new SettingsError(missing);
  return settings;
}

/**
 * In production every process must share the same signing and encryption keys, so they come
 * from the environment: a key generated into one container's data dir differs from the next
 * container's (API and worker would seal with different keys, replicas would reject each
 * other's tokens). Development and tests keep generating them into LOCI_DATA_DIR.
 */
function missingProductionSecrets(settings: RawSettings): string[] {
  if (settings.NODE_ENV !== 'production') return [];
  const required: Array<[keyof RawSettings, string]> = [
    ['JWT_SECRET', 'at least 32 characters, e.g. `openssl rand -base64 48`'],
    ['LOCI_ENCRYPTION_KEY', '32 bytes, base64, e.g. `openssl rand -base64 32`'],
  ];
  return required
    .filter(([name]) => settings[name] === undefined)
    .map(([name, shape]) => `${name}: required when NODE_ENV=production (${shape}), the same value for the API and every worker`);
}
