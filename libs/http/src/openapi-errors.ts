import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { refTo } from './openapi-schemas';
import { errorSurfaceOf } from './surfaces';

/**
 * Error responses in the OpenAPI document. A route declares the statuses only it can answer
 * with `@ApiErrors({404: 'why'})`; the document builder (`completeErrorResponses`) adds the
 * statuses the shared machinery answers with (the guard's 401/403, the body parser's 400/413/415,
 * query validation, store faults' 503) and gives every error response the body of its surface,
 * chosen by `errorSurfaceOf`, the function the exception filter uses: the document and the
 * answers cannot disagree on shapes.
 */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 406 | 409 | 413 | 415 | 422 | 429 | 502 | 503;

export interface ErrorDoc {
  description: string;
  /** A body other than the surface's (a JSON-RPC error, a health report). */
  schema?: Record<string, unknown>;
}

export function ApiErrors(errors: Partial<Record<ErrorStatus, string | ErrorDoc>>): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...Object.entries(errors).map(([status, doc]) => {
      const { description, schema } = typeof doc === 'string' ? { description: doc, schema: undefined } : doc;
      return ApiResponse({ status: Number(status), description, ...(schema ? { schema } : {}) });
    }),
  );
}

/** The spend limits' refusals (questions and remember), in the contracts' words. */
export const LIMIT_ERRORS = {
  402: 'A cost cap is reached: the daily or monthly cap (`cost_cap_exceeded`, `cost_cap_monthly_exceeded`) or the platform budget (`platform_budget_paused`); `retry_after` and Retry-After say when.',
  429: 'The daily question quota is used up (`daily_query_quota_exceeded`), too many questions of this client are in flight (`too_many_concurrent_queries`), or the request rate of the tenant or the API key is spent (`rate_limit_exceeded`, with `scope`, `limit` a minute and `burst`); Retry-After.',
  503: 'The store or the limits cannot be checked (`store_unavailable`, `limits_unavailable`); Retry-After.',
} as const satisfies Partial<Record<ErrorStatus, string>>;

const issueSchema = {
  type: 'object',
  required: ['loc', 'msg', 'type'],
  properties: {
    loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
    msg: { type: 'string' },
    type: { type: 'string' },
  },
};

/** The bodies of the three surfaces (DESIGN.md, Errors), and JSON-RPC's for /mcp's transport. */
export const ERROR_SCHEMAS = {
  ErrorResponse: {
    type: 'object',
    description: 'Every route outside /v1/query and /v1/gb/*.',
    required: ['error', 'request_id'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string', description: 'bad_request, validation_failed, unauthenticated, forbidden, not_found, conflict, store_unavailable, ...' },
          message: { type: 'string' },
          details: {
            type: 'array',
            description: 'Field problems of a validation error.',
            items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
          },
        },
        additionalProperties: true,
      },
      request_id: { type: 'string', nullable: true },
    },
  },
  GbError: {
    type: 'object',
    description: 'The gb contract\'s error body, /v1/gb/*: `{"error": "..."}` (limit refusals add their fields, e.g. `retry_after`).',
    required: ['error'],
    properties: { error: { type: 'string' } },
    additionalProperties: true,
  },
  ValidationError: issueSchema,
  HTTPValidationError: {
    type: 'object',
    description: "/v1/query's validation error, as FastAPI writes it.",
    required: ['detail'],
    properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
  },
  DetailError: {
    type: 'object',
    description: "/v1/query's other errors: a message, or a refusal's object (`{\"error\": \"cost_cap_exceeded\", \"cap\", \"spent\", \"retry_after\"}`).",
    required: ['detail'],
    properties: {
      detail: {
        oneOf: [
          { type: 'string' },
          { type: 'object', required: ['error'], properties: { error: { type: 'string' } }, additionalProperties: true },
        ],
      },
    },
  },
  JsonRpcError: {
    type: 'object',
    description: 'A JSON-RPC 2.0 error object, as the MCP transport answers what it refuses.',
    required: ['jsonrpc', 'error', 'id'],
    properties: {
      jsonrpc: { type: 'string', enum: ['2.0'] },
      error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
      // OpenAPI 3.0 has no null type, and `nullable` means nothing without a `type` beside it: each branch says it.
      id: { anyOf: [{ type: 'string', nullable: true }, { type: 'integer' }], description: 'The request id, or null when the request could not be read.' },
    },
  },
} as const;

export const jsonRpcErrorRef = () => refTo('JsonRpcError', ERROR_SCHEMAS.JsonRpcError);

/** The component an error status of a path answers with. */
export function errorSchemaName(path: string, status: number): keyof typeof ERROR_SCHEMAS {
  switch (errorSurfaceOf(path)) {
    case 'fastapi':
      return status === 422 ? 'HTTPValidationError' : 'DetailError';
    case 'gb':
      return 'GbError';
    case 'generic':
      return 'ErrorResponse';
  }
}

const VALIDATION = 'The request is not valid: each field problem is named.';
const SHARED_ERRORS: Record<string, string> = {
  unauthorized: 'No credentials, or ones that are not valid (unknown, revoked or expired key; bad, expired or revoked token).',
  forbidden: "The credentials may not call this route (role, or the API key's scope), or the tenant is suspended (`tenant_suspended`).",
  unreadable: 'The request cannot be read: a body that is not JSON or cannot be decoded (every route parses a JSON body it is sent), or a path value that is not valid percent-encoding.',
  tooLarge: 'The body is larger than the route accepts.',
  unsupported: 'The body has an encoding or a content type the route does not read.',
  notFound: 'Nothing of that id in the caller\'s scope.',
  store: 'The store is unavailable (`store_unavailable`); Retry-After.',
};

type Operation = {
  security?: unknown[];
  requestBody?: unknown;
  parameters?: { in: string }[];
  responses: Record<string, { description: string; content?: Record<string, { schema?: unknown }> }>;
};

/** The security schemes of tenant credentials (apps/api/src/openapi.ts): a user's JWT and an API key. */
const CREDENTIALS_WITH_ROLES = new Set(['jwt', 'api_key']);

/**
 * Adds the error statuses the shared machinery answers with, and the body of the path's
 * surface to every error response that has none.
 */
export function completeErrorResponses(paths: Record<string, Record<string, Operation>>): void {
  for (const [path, operations] of Object.entries(paths)) {
    const validation = errorSurfaceOf(path) === 'fastapi' ? 422 : 400;
    for (const op of Object.values(operations)) {
      const add = (status: number, description: string) => {
        op.responses[status] ??= { description };
      };
      if (op.security && op.security.length > 0) add(401, SHARED_ERRORS.unauthorized);
      // A role or a key's scope can be refused; /metrics's token (metrics_token) has neither.
      if (op.security?.some((requirement) => Object.keys(requirement as object).some((scheme) => CREDENTIALS_WITH_ROLES.has(scheme)))) {
        add(403, SHARED_ERRORS.forbidden);
      }
      if (op.requestBody || op.parameters?.some((p) => p.in === 'query')) add(validation, VALIDATION);
      // The body parser runs before routing, so a route that reads no body still answers for one it was sent.
      add(400, SHARED_ERRORS.unreadable);
      add(413, SHARED_ERRORS.tooLarge);
      add(415, SHARED_ERRORS.unsupported);
      if (op.parameters?.some((p) => p.in === 'path')) add(404, SHARED_ERRORS.notFound);
      // Every /v1 route reads the store (an API key is checked there too).
      if (path.startsWith('/v1/')) add(503, SHARED_ERRORS.store);
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400 || response.content) continue;
        const name = errorSchemaName(path, Number(status));
        response.content = { 'application/json': { schema: refTo(name, ERROR_SCHEMAS[name]) } };
      }
    }
  }
  // Referenced from HTTPValidationError.
  refTo('ValidationError', ERROR_SCHEMAS.ValidationError);
}
