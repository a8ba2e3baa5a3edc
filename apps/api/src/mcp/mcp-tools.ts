import type { ModuleRef } from '@nestjs/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Principal } from '@loci/auth';
import { ValidationError } from '@loci/common';
import { problemOf, RequestWithId } from '@loci/http';
import { GbDatasetsController } from '../gb/gb-datasets.controller';
import { GbQueryController } from '../gb/gb-query.controller';
import { gbQueryBody } from '../gb/gb-query.request';
import { rememberBody } from '../gb/gb-request';
import { RememberController } from '../gb/remember.controller';
import { queryBody, QUERY_MODES } from '../query/query.dto';
import { QueryService } from '../query/query.service';

type ApiKeyPrincipal = Extract<Principal, { kind: 'api_key' }>;

interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

const userId = z.string().describe('Whose memory: your end user\'s id (the gb user_id).');
const dataset = z.string().optional().describe('The user\'s dataset (one graph each); default "main".');

/**
 * Loci's tools for agents, over MCP, for one API key: the gb routes and /v1/query with the same
 * validation, limits and tenant scope as over HTTP (each tool calls the route's own handler with
 * the key's principal, so there is one implementation of each). A tool's failure is a tool
 * result with `isError` and the message the route would have answered with, so an agent can
 * read and act on it; the HTTP status it would have had leads the message.
 */
export function mcpServerFor(principal: ApiKeyPrincipal, requestId: string, modules: ModuleRef, version: string): McpServer {
  const server = new McpServer({ name: 'loci', version });
  let calls = 0;
  /** Each tool call is its own request for the ledger and the limits: one HTTP request may carry several. */
  const callRequest = () => ({ id: `${requestId}:${calls++}` }) as RequestWithId;
  const handler = <T>(type: new (...args: never[]) => T) => modules.get(type, { strict: false });

  const run = async (scope: 'read' | 'write', work: () => Promise<unknown>): Promise<ToolResult> => {
    if (!principal.scopes.includes(scope)) {
      return failed(`403: This API key lacks the '${scope}' scope this tool needs.`);
    }
    try {
      return { content: [{ type: 'text', text: JSON.stringify(await work()) }] };
    } catch (error) {
      const problem = problemOf(error, 'gb');
      if (problem.status >= 500 && problem.code === 'internal_error') throw error; // logged by the SDK's error path
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
        text: z.string().describe('What to remember, in plain language.'),
        dataset,
        valid_at: z.string().optional().describe('ISO-8601 time the text speaks of, when it is not now.'),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    (args) =>
      run('write', async () => handler(RememberController).rememberText(principal, parse(rememberBody, args), callRequest())),
  );

  server.registerTool(
    'query',
    {
      title: 'Query memory',
      description:
        "Answers a question from a user's memory (POST /v1/gb/query), with the evidence it used: entities, facts (with their times) and passages.",
      inputSchema: { user_id: userId, query: z.string().describe('The question.'), dataset },
      annotations: { readOnlyHint: true },
    },
    (args) => run('read', async () => handler(GbQueryController).query(principal, parse(gbQueryBody, args), callRequest())),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the knowledge graph',
      description:
        "Retrieves what the tenant's knowledge graph (its documents) holds about a question (POST /v1/query with an API key): " +
        'passages, entities and facts for your own model to answer from. No model of ours is called.',
      inputSchema: {
        query: z.string().describe('The question.'),
        mode: z.enum(QUERY_MODES).optional().describe('Retrieval mode; "mix" (default) combines graph and vector search.'),
        hl_keywords: z.array(z.string()).optional().describe('High-level keywords; with ll_keywords the graph is searched by them.'),
        ll_keywords: z.array(z.string()).optional().describe('Low-level keywords (names, specific terms).'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      run('read', async () => {
        const body = parse(queryBody, { ...args, context_only: true });
        const { context, metadata } = await handler(QueryService).query(principal, callRequest().id!, body);
        return { context, metadata };
      }),
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget a dataset',
      description: "Deletes one of a user's datasets whole (DELETE /v1/gb/datasets/{name}): its texts, entities and facts. Cannot be undone.",
      inputSchema: { user_id: userId, dataset: z.string().describe('The dataset to delete, e.g. "main".') },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    (args) =>
      run('write', async () => handler(GbDatasetsController).delete(principal, args.dataset, { user_id: parse(rememberBody.shape.user_id, args.user_id) })),
  );

  return server;
}

function failed(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** The route's own validation, so a tool refuses what the route refuses, in its words. */
function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ValidationError(parsed.error.issues.map((issue) => issue.message).join('; '));
}
