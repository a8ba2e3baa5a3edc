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

const integerFromEnv = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
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

const redisUrl = z.preprocess(
  emptyAsUndefined,
  z
    .string()
    .regex(/^rediss?:\/\/.+/, { message: 'expected a redis:// or rediss:// URL' })
    .optional(),
);

export const settingsSchema = z.object({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(['development', 'production', 'test']).default('development')),
  PORT: integerFromEnv(3000, 0, 65535),
  HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  DATABASE_URL: postgresUrl,
  LOCI_DB_POOL_MAX: integerFromEnv(10, 1, 500),
  LOCI_DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default('./data')),
  LOCI_MIGRATE_ON_START: booleanFromEnv(true),
  REDIS_URL: redisUrl,
  JWT_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
  ),
  JWT_TTL_SECONDS: integerFromEnv(3600, 60, 60 * 60 * 24 * 30),
  LOCI_BOOTSTRAP_OPERATOR_EMAIL: z.preprocess(emptyAsUndefined, z.email({ message: 'expected an email address' }).optional()),
  LOCI_BOOTSTRAP_OPERATOR_PASSWORD: z.preprocess(
    emptyAsUndefined,
    z.string().min(12, { message: 'must be at least 12 characters' }).optional(),
  ),
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
  return settings;
}
