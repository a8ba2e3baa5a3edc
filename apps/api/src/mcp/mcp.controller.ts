import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ApiKeyAllowed, CurrentPrincipal, Principal } from '@loci/auth';
import { ForbiddenError } from '@loci/common';
import type { RequestWithId } from '@loci/http';
import { mcpServerFor } from './mcp-tools';

/** The server's version in the MCP handshake: the protocol is versioned by the SDK; this names Loci's tools' revision. */
const SERVER_VERSION = '1.0.0';

/**
 * The MCP server for agents (Streamable HTTP transport, stateless): `remember`, `query`, `ask`
 * and `forget` as tools, for the API key that calls. Authentication is the routes' own (the
 * global guard, `X-API-Key` or `Authorization: Bearer loci_...`); each POST is answered by a
 * server built for that key's tenant and dropped with the response, so no session outlives its
 * request and no state is shared between keys or instances.
 */
@ApiTags('mcp')
@ApiSecurity('api_key')
// Any key may connect and list the tools; each tool checks the scope it needs (read or write).
@ApiKeyAllowed({ scope: null })
@Controller('mcp')
export class McpController {
  constructor(private readonly modules: ModuleRef) {}

  @Post()
  @ApiOperation({ summary: 'MCP over Streamable HTTP (JSON-RPC 2.0 messages)', description: 'Tools: remember, query, ask, forget. API keys only.' })
  @ApiOkResponse({ description: 'The JSON-RPC response (application/json).' })
  async post(@CurrentPrincipal() principal: Principal, @Req() req: RequestWithId, @Res() res: Response): Promise<void> {
    if (principal.kind !== 'api_key') throw new ForbiddenError('The MCP server takes an API key (X-API-Key), not a dashboard session.');
    const server = mcpServerFor(principal, req.id ?? 'unknown', this.modules, SERVER_VERSION);
    // Stateless: no session id; plain JSON replies (the tools do not stream progress).
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, (req as RequestWithId & { body?: unknown }).body);
  }

  /** A stateless server has no stream to open (GET) and no session to end (DELETE). */
  @Get()
  @ApiOperation({ summary: 'Not offered: no server-initiated stream on a stateless server (405)' })
  noStream(@Res() res: Response): void {
    methodNotAllowed(res);
  }

  @Delete()
  @ApiOperation({ summary: 'Not offered: a stateless server has no session to end (405)' })
  noSession(@Res() res: Response): void {
    methodNotAllowed(res);
  }
}

/** What the SDK's stateless examples answer: a JSON-RPC error the client's transport understands. */
function methodNotAllowed(res: Response): void {
  res.status(405).setHeader('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp.' }, id: null });
}
