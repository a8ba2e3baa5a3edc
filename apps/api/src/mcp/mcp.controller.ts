import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiKeyAllowed, CurrentPrincipal, McpOAuthAllowed, Principal } from '@loci/auth';
import { ForbiddenError } from '@loci/common';
import { ApiErrors, ERROR_SCHEMAS, jsonRpcErrorRef, refTo, type RequestWithId } from '@loci/http';
import { MCP_BODY_LIMIT_BYTES, mcpServerFor } from './mcp-tools';

const jsonRpcId = { oneOf: [{ type: 'string' }, { type: 'integer' }] };
const JSON_RPC_MESSAGE = refTo('JsonRpcMessage', {
  type: 'object',
  description: 'A JSON-RPC 2.0 request or notification (a batch is an array of them): initialize, tools/list, tools/call, ...',
  required: ['jsonrpc', 'method'],
  properties: { jsonrpc: { type: 'string', enum: ['2.0'] }, method: { type: 'string' }, params: { type: 'object', additionalProperties: true }, id: jsonRpcId },
}, 'input');
const JSON_RPC_RESPONSE = refTo('JsonRpcResponse', {
  type: 'object',
  description: 'A JSON-RPC 2.0 response: `result`, or `error` (a tool failure is a result with isError).',
  required: ['jsonrpc', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: jsonRpcId,
    result: { type: 'object', additionalProperties: true },
    error: ERROR_SCHEMAS.JsonRpcError.properties.error,
  },
});
const NOT_OFFERED = { 405: { description: 'Always: POST JSON-RPC messages to /mcp (Allow: POST).', schema: jsonRpcErrorRef() } } as const;

/** The server's version in the MCP handshake: the protocol is versioned by the SDK; this names Loci's tools' revision. */
const SERVER_VERSION = '1.0.0';

/**
 * The MCP server for agents (Streamable HTTP transport, stateless): `remember`, `query`, `ask`
 * and `forget` as tools, for the API key or the OAuth-authorized client that calls.
 * Authentication is the routes' own (the global guard: `X-API-Key` or `Authorization: Bearer
 * loci_...`; an OAuth token checked by the SDK's bearer middleware, oauth/mount-mcp-oauth.ts);
 * each POST is answered by a server built for that caller's tenant and dropped with the
 * response, so no session outlives its request and no state is shared between callers or instances.
 */
@ApiTags('mcp')
@ApiSecurity('api_key')
// Any key may connect and list the tools; each tool checks the scope it needs (read or write).
@ApiKeyAllowed({ scope: null })
// A standard MCP client's OAuth token (oauth/): it acts for the user who consented, with the scopes granted.
@McpOAuthAllowed()
@Controller('mcp')
export class McpController {
  constructor(private readonly modules: ModuleRef) {}

  @Post()
  @ApiOperation({
    summary: 'MCP over Streamable HTTP (JSON-RPC 2.0 messages)',
    description:
      'The Model Context Protocol for agents, stateless, JSON replies. Tools: remember, query (gb), ask (/v1/query context) and forget ' +
      "(dataset delete), each with its route's validation, limits and scope. An API key, or an OAuth access token a Loci user granted " +
      'to the client (discovery at /.well-known/oauth-protected-resource/mcp; without credentials the 401 names it in WWW-Authenticate); ' +
      'a dashboard session is 403. ' +
      'Send `Accept: application/json, text/event-stream`.',
  })
  @ApiBody({ schema: JSON_RPC_MESSAGE })
  @ApiOkResponse({ description: 'The JSON-RPC response.', schema: JSON_RPC_RESPONSE })
  @ApiAcceptedResponse({ description: 'Notifications only: nothing to answer.', schema: refTo('Empty', { type: 'object', maxProperties: 0, description: 'No content to read.' }) })
  @ApiErrors({
    400: { description: 'Not JSON, or not a JSON-RPC message.', schema: jsonRpcErrorRef() },
    406: { description: 'Accept does not name both application/json and text/event-stream.', schema: jsonRpcErrorRef() },
    413: { description: `The body is over ${MCP_BODY_LIMIT_BYTES} bytes: one call of the largest tool (remember's 1 MiB) and its envelope.`, schema: jsonRpcErrorRef() },
    415: { description: 'The body is not application/json.', schema: jsonRpcErrorRef() },
  })
  async post(@CurrentPrincipal() principal: Principal, @Req() req: RequestWithId, @Res() res: Response): Promise<void> {
    if (principal.kind === 'jwt') throw new ForbiddenError('The MCP server takes an API key (X-API-Key) or an MCP OAuth token, not a dashboard session.');
    const server = mcpServerFor(principal, req.id ?? 'unknown', this.modules, SERVER_VERSION);
    // Stateless: no session id; plain JSON replies (the tools do not stream progress). The
    // transport reads the body itself (Loci's body parser leaves /mcp alone), so a body over the
    // limit or not JSON is refused as a JSON-RPC error, before more than the limit is read.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_BODY_LIMIT_BYTES,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }

  /** A stateless server has no stream to open (GET) and no session to end (DELETE). */
  @Get()
  @ApiOperation({
    summary: 'Not offered: no server-initiated stream on a stateless server (405)',
    description: 'Streamable HTTP lets a client open a stream for server messages with GET; a stateless server sends none, so it answers 405 as the SDK does.',
  })
  @ApiErrors(NOT_OFFERED)
  noStream(@Res() res: Response): void {
    methodNotAllowed(res);
  }

  @Delete()
  @ApiOperation({
    summary: 'Not offered: a stateless server has no session to end (405)',
    description: 'Streamable HTTP ends a session with DELETE; a stateless server has none, so it answers 405 as the SDK does.',
  })
  @ApiErrors(NOT_OFFERED)
  noSession(@Res() res: Response): void {
    methodNotAllowed(res);
  }
}

/** What the SDK's stateless examples answer: a JSON-RPC error the client's transport understands. */
function methodNotAllowed(res: Response): void {
  res.status(405).setHeader('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp.' }, id: null });
}
