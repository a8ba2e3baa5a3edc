import { Logger } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Principal } from '@loci/auth';
import { LimitExceededError, ValidationError } from '@loci/common';
import { errorSummary, loggableError } from '@loci/db';
import { bodyLimitBytesOf, problemOf, QUESTION_MAX_CHARS, RequestWithId } from '@loci/http';
import { RequestRates } from '@loci/quota';
import { GbDatasetsController } from '../gb/gb-datasets.controller';
import { GbQueryController } from '../gb/gb-query.controller';
import { gbQueryBody } from '../gb/gb-query.request';
import { DATASET_MAX_CHARS, REMEMBER_TEXT_MAX_CHARS, rememberBody, USER_ID_MAX_CHARS } from '../gb/gb-request';
import { RememberController } from '../gb/remember.controller';
import { limitedClient } from '../limits/limited-client';
import { RefusalCounter } from '../limits/refusal-counter';
import { KEYWORDS_MAX, MAX_TOTAL_TOKENS_MAX, MAX_TOTAL_TOKENS_MIN, queryBody, QUERY_MODES, TOP_K_MAX } from '../query/query.dto';
import { QueryService } from '../query/query.service';

/** Who may use the tools: an API key, or an MCP client a user authorized (OAuth), both scoped read/write. */
export type AgentPrincipal = Extract<Principal, { kind: 'api_key' | 'oauth' }>;

interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

/**
 * The tools' arguments carry the bounds of their routes' request schemas (query.dto.ts,
 * gb/*.request.ts), so the SDK refuses an oversized one before any handler runs and an agent
 * reads the bounds in tools/list; the routes' own validation then runs on what passes.
 */
const bounded = (name: string, maxChars: number) => z.string().max(maxChars, `${name} must be at most ${maxChars} characters`);
const keywords = (name: string) =>
  z.array(bounded(name, QUESTION_MAX_CHARS)).max(KEYWORDS_MAX, `${name} must have at most ${KEYWORDS_MAX} items`).optional();
const userId = bounded('user_id', USER_ID_MAX_CHARS).describe('Whose memory: your end user\'s id (the gb user_id).');
const dataset = bounded('dataset', DATASET_MAX_CHARS).optional().describe('The user\'s dataset (one graph each); default "main".');
/** An ISO-8601 instant is some thirty characters; the route checks its form. */
const INSTANT_MAX_CHARS = 64;
const asOf = bounded('as_of', INSTANT_MAX_CHARS)
  .optional()
  .describe('ISO-8601 instant with a zone: what was true then, by everything known now (e.g. "Where did Alice work in 2022?").');
const knownAt = bounded('known_at', INSTANT_MAX_CHARS)
  .optional()
  .describe('ISO-8601 instant with a zone: read only what had been recorded by then (what Loci knew at that time).');

/**
 * The SDK's bound on one call's arguments, counted as array elements and object members before
 * any schema reads them, so no nesting or list is walked past it: the widest call that can be
 * valid (ask with both keyword lists full) and room for the named arguments.
 */
const MAX_TOOL_INPUT_ELEMENTS = 2 * KEYWORDS_MAX + 16;

/** Each tool's route: its body limit bounds the tool's arguments as it bounds the route's body. */
const ROUTES = { remember: '/v1/gb/remember', query: '/v1/gb/query', ask: '/v1/query', forget: '/v1/gb/datasets' } as const;
type ToolName = keyof typeof ROUTES;

/** The /mcp body: one call to the tool with the largest route limit, and its JSON-RPC envelope. */
export const MCP_BODY_LIMIT_BYTES = Math.max(...Object.values(ROUTES).map(bodyLimitBytesOf)) + 16 * 1024;

const logger = new Logger('McpTools');

/**
 * Loci's tools for agents, over MCP, for one API key or one user's authorized client: the gb routes and /v1/query with the same
 * validation, limits and tenant scope as over HTTP (each tool calls the route's own handler with
 * the key's principal, so there is one implementation of each). A tool's failure is a tool
 * result with `isError` and the message the route would have answered with, so an agent can
 * read and act on it; the HTTP status it would have had leads the message. A failure of Loci's
 * own says "internal error" and the call's request id, as a 500 does, and goes to the log as a
 * record without the tenant's text.
 */
export function mcpServerFor(principal: AgentPrincipal, requestId: string, modules: ModuleRef, version: string): McpServer {
  const server = new McpServer({ name: 'loci', version }, { maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS });
  let calls = 0;
  const handler = <T>(type: new (...args: never[]) => T) => modules.get(type, { strict: false });

  const run = async (tool: ToolName, scope: 'read' | 'write', args: object, work: (call: RequestWithId) => Promise<unknown>): Promise<ToolResult> => {
    if (!principal.scopes.includes(scope)) {
      const holder = principal.kind === 'api_key' ? 'This API key' : 'This authorization';
      return failed(`403: ${holder} lacks the '${scope}' scope this tool needs.`);
    }
    const limit = bodyLimitBytesOf(ROUTES[tool]);
    // The schema has bounded each argument; together they may weigh no more than the route's body.
    if (Buffer.byteLength(JSON.stringify(args)) > limit) {
      return failed(`413: The arguments are larger than the ${inKibOrMib(limit)} that ${ROUTES[tool]} takes.`);
    }
    // Each tool call is its own request for the ledger and the limits: one HTTP request may carry several.
    const call = { id: `${requestId}:${calls++}` } as RequestWithId;
    try {
      // Every tool call is a metered request, as its route is over HTTP: one token of the rate.
      await handler(RequestRates).take(limitedClient(principal, call.id));
      return { content: [{ type: 'text', text: JSON.stringify(await work(call)) }] };
    } catch (error) {
      // A refusal delivered as a tool result never passes the HTTP error path, where refusals are counted.
      await handler(RefusalCounter).countIfRefusal(error, principal.tenantId);
      const problem = problemOf(error, 'gb');
      if (problem.status >= 500) {
        // The record, never the error itself: a driver's message carries the statement's values.
        logger.error({ err: loggableError(error), callId: call.id, tool }, `${problem.code} in MCP tool ${tool}: ${errorSummary(error)}`);
      }
      if (problem.code === 'internal_error') return failed(`${problem.status}: internal error (request id ${call.id})`);
      // A limit's refusal carries what an agent needs to wait it out (retry_after, the limit).
      if (error instanceof LimitExceededError) return failed(`${problem.status}: ${error.code} ${JSON.stringify(error.body)}`);
      return failed(`${problem.status}: ${problem.message}`);
    }
  };

  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        "Stores a text in a user's memory (POST /v1/gb/remember): its entities and facts join the user's dataset graph, " +
        'newer facts superseding older ones. Answers with what was created, updated, superseded or ended.',
      inputSchema: {
        user_id: userId,
        text: bounded('text', REMEMBER_TEXT_MAX_CHARS).describe('What to remember, in plain language.'),
        dataset,
        valid_at: bounded('valid_at', INSTANT_MAX_CHARS).optional().describe('ISO-8601 time the text speaks of, when it is not now.'),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) => run('remember', 'write', args, (call) => handler(RememberController).rememberText(principal, parse(rememberBody, args), call)),
  );

  server.registerTool(
    'query',
    {
      title: 'Query memory',
      description:
        "Answers a question from a user's memory (POST /v1/gb/query), with the evidence it used: entities, facts (with their times) and passages.",
      inputSchema: {
        user_id: userId,
        query: bounded('query', QUESTION_MAX_CHARS).describe('The question.'),
        dataset,
        as_of: asOf,
        known_at: knownAt,
      },
      annotations: { readOnlyHint: true },
    },
    (args) => run('query', 'read', args, (call) => handler(GbQueryController).query(principal, parse(gbQueryBody, args), call)),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the knowledge graph',
      description:
        "Retrieves what the tenant's knowledge graph (its documents) holds about a question (POST /v1/query with an API key): " +
        'passages, entities and facts for your own model to answer from. No model of ours is called.',
      inputSchema: {
        query: bounded('query', QUESTION_MAX_CHARS).describe('The question.'),
        mode: z.enum(QUERY_MODES).optional().describe('Retrieval mode; "mix" (default) combines graph and vector search.'),
        hl_keywords: keywords('hl_keywords').describe('High-level keywords; with ll_keywords the graph is searched by them.'),
        ll_keywords: keywords('ll_keywords').describe('Low-level keywords (names, specific terms).'),
        as_of: asOf,
        known_at: knownAt,
        top_k: z.number().int().min(1).max(TOP_K_MAX).optional().describe('Entities (and as many facts) to keep; default: as the budget holds.'),
        chunk_top_k: z.number().int().min(1).max(TOP_K_MAX).optional().describe('Passages to keep, best first.'),
        max_total_tokens: z
          .number()
          .int()
          .min(MAX_TOTAL_TOKENS_MIN)
          .max(MAX_TOTAL_TOKENS_MAX)
          .optional()
          .describe('Tokens of the whole context returned; default 11,000. Lower it to fit your model.'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run('ask', 'read', args, async (call) => {
        const body = parse(queryBody, { ...args, context_only: true });
        const { context, metadata } = await handler(QueryService).query(principal, call.id, body);
        return { context, metadata };
      }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget a dataset',
      description: "Deletes one of a user's datasets whole (DELETE /v1/gb/datasets/{name}): its texts, entities and facts. Cannot be undone.",
      inputSchema: { user_id: userId, dataset: bounded('dataset', DATASET_MAX_CHARS).describe('The dataset to delete, e.g. "main".') },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      run('forget', 'write', args, () =>
        handler(GbDatasetsController).delete(principal, args.dataset, { user_id: parse(rememberBody.shape.user_id, args.user_id) }),
      ),
  );

  // A stateless server answers each POST and forgets it: it can never tell a client that the tool
  // list changed, so it must not promise to (registerTool advertises `listChanged: true`).
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

const inKibOrMib = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`);

function failed(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The route's own validation, so a tool refuses what the route refuses, in its words. */
function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(parsed.error.issues.map((issue) => issue.message).join('; '));
}
