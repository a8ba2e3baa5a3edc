import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { metadataHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/metadata.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { revocationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/revoke.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { LoginThrottleService, looksLikeMcpAccessToken } from '@loci/auth';
import { loggableError } from '@loci/db';
import type { HttpSettings } from '@loci/config';
import { Settings, SETTINGS } from '@loci/config';
import { sendConsentError, CONSENT_PATH } from './consent-page';
import { consentHandler } from './consent.handler';
import { MCP_SCOPES, McpOAuthProvider } from './mcp-oauth.provider';
import { isServableIssuer, mcpResourceOf, publicOrigin } from './public-origin';

/** Where the authorization server's endpoints live: beside the API, out of /v1 and /mcp. */
export const OAUTH_PATHS = { authorize: '/oauth/authorize', token: '/oauth/token', register: '/oauth/register', revoke: '/oauth/revoke' } as const;
const PROTECTED_RESOURCE_PATHS = ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'];
const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

const logger = new Logger('McpOAuth');

/**
 * The MCP authorization spec on Loci (issue 40.7), with the SDK's own express handlers: the
 * metadata a client discovers (RFC 9728 protected resource, RFC 8414 authorization server), the
 * authorization server's endpoints (authorize, token, dynamic registration, revocation), the
 * consent form's POST, and the bearer check in front of /mcp, whose 401 names the resource
 * metadata. API keys on /mcp pass the bearer check untouched, to the guard as before.
 */
export function mountMcpOAuth(app: INestApplication): void {
  const provider = app.get(McpOAuthProvider);
  const http = app.get<Settings>(SETTINGS).http;

  for (const path of PROTECTED_RESOURCE_PATHS) app.use(path, perOrigin(http, (origin) => metadataHandler(protectedResourceMetadata(origin))));
  app.use(AUTHORIZATION_SERVER_PATH, perOrigin(http, (origin) => metadataHandler(authorizationServerMetadata(origin))));

  app.use(OAUTH_PATHS.authorize, authorizationHandler({ provider }));
  app.use(OAUTH_PATHS.token, tokenHandler({ provider }));
  app.use(OAUTH_PATHS.register, clientRegistrationHandler({ clientsStore: provider.clientsStore }));
  app.use(OAUTH_PATHS.revoke, revocationHandler({ provider }));
  const consent = express.Router();
  consent.post('/', express.urlencoded({ extended: false, limit: '16kb' }), failSafe(consentHandler(provider, app.get(LoginThrottleService))));
  app.use(CONSENT_PATH, consent);

  app.use('/mcp', bearerUnlessApiKey(provider, http));
}

/**
 * In front of /mcp, for a request with no credential or with an MCP access token: the token is
 * checked by the provider (the SDK's verifier interface, as requireBearerAuth would) and, when
 * good, left on `req.auth` for the guard; otherwise the answer-to-be gets the spec's
 * `WWW-Authenticate: Bearer resource_metadata="…"` (how a client learns where to authorize) and
 * the guard refuses the request with Loci's own 401 body, which the OpenAPI document and every
 * other route use. (The SDK's requireBearerAuth would answer in OAuth's shape instead.) A store
 * fault is left for the guard to raise (503). API keys and dashboard tokens pass untouched: a key
 * as before, a session still 403.
 */
function bearerUnlessApiKey(provider: McpOAuthProvider, http: HttpSettings): RequestHandler {
  return (req, res, next) => {
    const apiKey = req.header('x-api-key')?.trim();
    const bearer = req.header('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (apiKey || (bearer && !looksLikeMcpAccessToken(bearer))) return next();
    const origin = publicOrigin(req, http);
    const challenge = (error?: string) =>
      res.setHeader(
        'WWW-Authenticate',
        `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${origin}${PROTECTED_RESOURCE_PATHS[1]}", scope="${MCP_SCOPES.join(' ')}"`,
      );
    if (!bearer) {
      challenge();
      return next();
    }
    provider.verifyAccessToken(bearer).then(
      (info) => {
        // RFC 8707: a token issued for another resource (another origin's /mcp) is not for here.
        if (info.resource?.href.replace(/\/+$/, '') === mcpResourceOf(origin)) (req as Request & { auth?: AuthInfo }).auth = info;
        else challenge('invalid_token');
        next();
      },
      (error: unknown) => {
        if (error instanceof InvalidTokenError) challenge('invalid_token');
        else (req as Request & { authFault?: unknown }).authFault = error;
        next();
      },
    );
  };
}

function protectedResourceMetadata(origin: string): OAuthProtectedResourceMetadata {
  return {
    resource: mcpResourceOf(origin),
    authorization_servers: [origin],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Loci MCP server',
    resource_documentation: `${origin}/docs`,
  };
}

function authorizationServerMetadata(origin: string): OAuthMetadata {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${origin}${OAUTH_PATHS.token}`,
    registration_endpoint: `${origin}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${origin}${OAUTH_PATHS.revoke}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    // Every client is registered public (no secret): PKCE is what binds a code to its client.
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: MCP_SCOPES,
  };
}

/**
 * Metadata names the origin it is read at (or LOCI_PUBLIC_URL). Over plain HTTP on a host other
 * than loopback there is no authorization server to offer: OAuth 2.1 requires TLS.
 */
function perOrigin(http: HttpSettings, handlerFor: (origin: string) => RequestHandler): RequestHandler {
  return (req, res, next) => {
    const origin = publicOrigin(req, http);
    if (!isServableIssuer(origin)) {
      res.status(404).json({ error: 'not_found', error_description: 'OAuth needs HTTPS: reach Loci over https://, or set LOCI_PUBLIC_URL.' });
      return;
    }
    handlerFor(origin)(req, res, next);
  };
}

/** A failure of Loci's own on the consent form: a plain page with nothing of the error in it, and a log record. */
function failSafe(handler: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return (req: Request, res: Response, _next: NextFunction) => {
    handler(req, res).catch((error: unknown) => {
      logger.error({ err: loggableError(error) }, 'MCP consent failed');
      if (!res.headersSent) sendConsentError(res, 500, 'Loci could not complete the authorization. Try again later.');
    });
  };
}
