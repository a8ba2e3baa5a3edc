import { z } from 'zod';
import { MODEL_SPEC_PATTERN } from '@loci/config';
import { BODY_LIMIT_BYTES, freeText, plainName, named } from '@loci/http';
import { qualifyModelName, REASONING_LEVELS, ReasoningLevel } from '@loci/llm';

/**
 * Validation shared by the gb endpoints, with the contract's rules and messages a client can
 * act on. `remember` takes the stages extract/summarize; `query` takes query/detect_geo; a
 * stage of the other endpoint is rejected.
 */

export const REMEMBER_STAGES = ['extract', 'summarize'] as const;
export const QUERY_STAGES = ['query', 'detect_geo'] as const;

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** The longest of each free-form field; named so other surfaces (MCP) hold them too. */
export const USER_ID_MAX_CHARS = 256;
export const DATASET_MAX_CHARS = 64;
/** What the route's 1 MiB body can carry (each character is at least one byte of JSON). */
export const REMEMBER_TEXT_MAX_CHARS = BODY_LIMIT_BYTES;

export const userIdField = plainName(
  z
    .string({ error: 'user_id is required and must be a string' })
    .trim()
    .min(1, 'user_id is required')
    .max(USER_ID_MAX_CHARS, `user_id must be at most ${USER_ID_MAX_CHARS} characters`),
  'user_id',
);

export const sessionIdField = z
  .string({ error: 'session_id must be a string' })
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 128, 'session_id must be at most 128 bytes')
  .refine((value) => !CONTROL_CHARACTERS.test(value), 'session_id must not contain control characters')
  .optional();

export const datasetField = z
  .string({ error: 'dataset must be a string' })
  .regex(new RegExp(`^[A-Za-z0-9._-]{1,${DATASET_MAX_CHARS}}$`), `dataset must be 1 to ${DATASET_MAX_CHARS} letters, digits, ".", "_" or "-"`)
  .default('main');

const levelNames = REASONING_LEVELS.join(', ');

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A per-stage field of the gb contract: a single value (for the stage that writes: extract or
 * query) or an object with a value per stage. Unknown stages, including the other endpoint's,
 * are rejected by name.
 */
function perStageField<T>(field: string, stages: readonly string[], mainStage: string | null, parse: (value: unknown, where: string) => T | string) {
  return z.unknown().transform((raw, ctx): Partial<Record<string, T>> | undefined => {
    if (raw === undefined || raw === null) return undefined;
    const entries: Array<[string, unknown]> =
      typeof raw === 'string' && mainStage ? [[mainStage, raw]] : isPlainObject(raw) ? Object.entries(raw) : [];
    if (entries.length === 0 && !isPlainObject(raw)) {
      ctx.addIssue({ code: 'custom', message: `${field} must be ${mainStage ? 'a string or ' : ''}an object of ${stages.join(' / ')} values` });
      return z.NEVER;
    }
    const result: Partial<Record<string, T>> = {};
    for (const [stage, value] of entries) {
      if (!stages.includes(stage)) {
        ctx.addIssue({ code: 'custom', message: `${field}: unknown stage "${stage}" (allowed: ${stages.join(', ')})` });
        continue;
      }
      const parsed = parse(value, `${field}.${stage}`);
      if (typeof parsed === 'string' && parsed.startsWith('!')) ctx.addIssue({ code: 'custom', message: parsed.slice(1) });
      else result[stage] = parsed as T;
    }
    return result;
  }).optional();
}

/** A reasoning level, or `!` and what is wrong with the value. */
const parseLevel = (value: unknown, where: string): string => {
  if (typeof value !== 'string') return `!${where} must be a string (${levelNames})`;
  const lowered = value.toLowerCase();
  return (REASONING_LEVELS as readonly string[]).includes(lowered)
    ? lowered
    : `!${where}: unknown reasoning level "${value}" (allowed: ${levelNames})`;
};

const parseModel = (value: unknown, where: string): string => {
  if (typeof value !== 'string' || !value.trim()) return `!${where} must be a model name`;
  const qualified = qualifyModelName(value.trim());
  return MODEL_SPEC_PATTERN.test(qualified) ? qualified : `!${where}: malformed model name "${value}"`;
};

/** `reasoning`: one level for the stage that writes (extract / query), or a level per stage. */
export function reasoningField(stages: readonly string[], mainStage: string) {
  return perStageField<ReasoningLevel>('reasoning', stages, mainStage, parseLevel);
}

/** `models`: a model name per stage (bare names like `claude-haiku-4-5` are accepted). */
export function modelsField(stages: readonly string[]) {
  return perStageField<string>('models', stages, null, parseModel);
}

/** An instant of query: an ISO-8601 date-time with a zone (`Z` or an offset); a date alone or a local time names no instant. */
const instantField = (name: string) =>
  z.iso
    .datetime({ offset: true, error: `${name} must be an ISO-8601 date-time with a time zone, e.g. 2024-06-01T00:00:00Z` })
    .transform((value) => new Date(value))
    .optional();

/** `as_of` of query (valid time): the instant the question is about, by everything known now. */
export const asOfField = instantField('as_of');

/** `known_at` of query (record time): only what had been remembered by this instant is read. */
export const knownAtField = instantField('known_at');

/** `include_history` of query: adds the ended and superseded facts around the seeds, marked. */
export const includeHistoryField = z.boolean({ error: 'include_history must be a boolean' }).optional();

export const rememberBody = z.object({
  user_id: userIdField,
  text: freeText({ error: 'text is required and must be a string' })
    .max(REMEMBER_TEXT_MAX_CHARS, `text must be at most ${REMEMBER_TEXT_MAX_CHARS} characters`)
    .refine((t) => t.trim().length > 0, 'text must not be empty'),
  dataset: datasetField,
  session_id: sessionIdField,
  valid_at: z.iso
    .datetime({ offset: true, error: 'valid_at must be an ISO-8601 date-time, e.g. 2025-01-31T09:00:00Z' })
    .transform((value) => new Date(value))
    .optional(),
  reasoning: reasoningField(REMEMBER_STAGES, 'extract'),
  models: modelsField(REMEMBER_STAGES),
});

export type RememberBody = z.output<typeof rememberBody>;

// OpenAPI component names: the types of the generated client (packages/client).
named('RememberRequest', rememberBody);
