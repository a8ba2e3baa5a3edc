import { z } from 'zod';
import { freeText, named, QUESTION_MAX_CHARS } from '@loci/http';

/**
 * The /v1/query request, with FastAPI's vocabulary in its errors (`missing` / "Field
 * required", `string_type`, ...), because that is what its clients were written against.
 * Unknown fields are ignored, as FastAPI's default models do.
 */
const fieldError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'Field required' : `Input should be ${expected}`;

/**
 * Keywords per list: far more than a question has (a client's extraction gives a handful), and
 * few enough that every search they drive stays small. Named so other surfaces (MCP) hold it too.
 */
export const KEYWORDS_MAX = 100;

const keywordList = z
  .array(freeText({ error: fieldError('a valid string') }), { error: fieldError('a valid list') })
  .max(KEYWORDS_MAX, `List should have at most ${KEYWORDS_MAX} items`)
  .nullable()
  .optional();

export const QUERY_MODES = ['mix', 'local', 'global', 'naive', 'hybrid'] as const;

/** An optional instant, refused in FastAPI's words unless it names its zone. */
const instant = () =>
  z.iso
    .datetime({ offset: true, error: fieldError('a valid datetime with a time zone, e.g. 2024-06-01T00:00:00Z') })
    .transform((value) => new Date(value))
    .nullable()
    .optional();

/** Bounds of LightRAG's QueryParam names: rows per search stay a top-k search; a context fits any model's window. */
export const TOP_K_MAX = 200;
export const MAX_TOTAL_TOKENS_MIN = 100;
export const MAX_TOTAL_TOKENS_MAX = 1_000_000;

/** An optional bounded integer, refused in FastAPI's words. */
const boundedInteger = (min: number, max: number) =>
  z
    .number({ error: fieldError('a valid integer') })
    .int('Input should be a valid integer')
    .min(min, `Input should be greater than or equal to ${min}`)
    .max(max, `Input should be less than or equal to ${max}`)
    .nullable()
    .optional();

export const queryBody = z
  .object(
    {
      query: freeText({ error: fieldError('a valid string') })
        .max(QUESTION_MAX_CHARS, `String should have at most ${QUESTION_MAX_CHARS} characters`)
        .refine((value) => value.trim().length > 0, { message: 'Value error, query must not be empty' }),
      mode: z
        .enum(QUERY_MODES, { error: () => "Input should be 'mix', 'local', 'global', 'naive' or 'hybrid'" })
        .default('mix'),
      include_sources: z.boolean({ error: fieldError('a valid boolean') }).default(false),
      context_only: z.boolean({ error: fieldError('a valid boolean') }).default(false),
      /**
       * Not in the contract: answer as Server-Sent Events (sources, the answer as it is written,
       * metadata). Only the transport changes; who answers and what is in it stay the same.
       */
      stream: z.boolean({ error: fieldError('a valid boolean') }).default(false),
      /**
       * Not in the contract; LightRAG's QueryParam names, so its clients can bound what comes
       * back. Left out, the defaults are unchanged. `top_k`: entities, and relations, kept (and
       * rows per search); `chunk_top_k`: chunks kept; `max_total_tokens`: the whole context.
       */
      top_k: boundedInteger(1, TOP_K_MAX).describe(`Entities (and as many relations) kept, and rows per search; 1-${TOP_K_MAX}. Default: 20 rows per search, the token budgets cut.`),
      chunk_top_k: boundedInteger(1, TOP_K_MAX).describe(`Chunks kept, best first; 1-${TOP_K_MAX}. Default: as many as the budget holds.`),
      max_total_tokens: boundedInteger(MAX_TOTAL_TOKENS_MIN, MAX_TOTAL_TOKENS_MAX).describe(
        'Tokens of the whole context (entities, relations and chunks as rendered for a model). Default: 11,000 (2,000 + 3,000 + 6,000).',
      ),
      hl_keywords: keywordList,
      ll_keywords: keywordList,
      // Loci's own additions (README, "as_of and known_at"): valid time, what was true at the
      // instant by everything known now; record time, only what had been recorded by then.
      as_of: instant(),
      known_at: instant(),
    },
    { error: () => 'Input should be a valid dictionary or object to extract fields from' },
  )
  .superRefine((body, ctx) => {
    const hasHigh = body.hl_keywords != null;
    const hasLow = body.ll_keywords != null;
    if (hasHigh !== hasLow) {
      ctx.addIssue({
        code: 'custom',
        path: [hasHigh ? 'll_keywords' : 'hl_keywords'],
        message: 'Value error, hl_keywords and ll_keywords must be provided together',
      });
    }
  });

export type QueryBody = z.output<typeof queryBody>;

const sourceItem = z.object({
  document_id: z.string(),
  chunk_id: z.string().nullable(),
  excerpt: z.string().nullable(),
  reference_id: z.string().nullable(),
  document_date: z.string().nullable(),
  loaded_days_ago: z.number().int().nullable(),
  freshness: z.string().nullable(),
  document_name: z.string().nullable(),
});

const contextChunk = z.object({
  text: z.string(),
  document_id: z.string(),
  chunk_id: z.string().nullable(),
  document_name: z.string().nullable(),
  document_date: z.string().nullable(),
  loaded_days_ago: z.number().int().nullable(),
  freshness: z.string().nullable(),
});

export const queryResponse = z.object({
  answer: z.string(),
  sources: z.array(sourceItem),
  metadata: z.object({
    mode: z.string(),
    model: z.string(),
    tokens_in: z.number().int(),
    tokens_out: z.number().int(),
    latency_ms: z.number().int(),
    unresolved_sources_count: z.number().int(),
    no_answer_reason: z.string().nullable(),
  }),
  context: z
    .object({
      chunks: z.array(contextChunk),
      entities: z.array(z.object({ name: z.string(), type: z.string().nullable(), description: z.string().nullable() })),
      relations: z.array(
        z.object({
          source: z.string(),
          target: z.string(),
          description: z.string().nullable(),
          keywords: z.string().nullable(),
          weight: z.number().nullable(),
        }),
      ),
      truncated: z.boolean(),
    })
    .nullable(),
});

export type QueryResponse = z.infer<typeof queryResponse>;
export type SourceItem = z.infer<typeof sourceItem>;
export type ContextChunk = z.infer<typeof contextChunk>;

// OpenAPI component names: the types of the generated client (packages/client).
named('QueryRequest', queryBody);
named('QueryResponse', queryResponse);
