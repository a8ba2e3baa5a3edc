import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { ForbiddenError, UnauthenticatedError } from '@loci/common';
import type { ApiKeyScope, UserRole } from '@loci/db';
import { looksLikeApiKey } from './api-key-secret';
import { credentialFrom } from './credential';
import { API_KEY_ALLOWED, API_KEY_SCOPES, IS_PUBLIC, MCP_OAUTH_ALLOWED, ROLES } from './decorators';
import { InsufficientScopeError } from './insufficient-scope.error';
import { looksLikeMcpAccessToken } from './mcp-oauth-secret';
import { principalOrRefusal } from './passport-outcome';
import { Principal } from './principal';

type AuthenticatedRequest = Request & {
  principal?: Principal;
  user?: unknown;
  /** An MCP access token, checked by the bearer middleware in front of /mcp (apps/api/src/mcp/oauth). */
  auth?: { token: string; extra?: Record<string, unknown> };
  /** Why that middleware could not check it (the store): raised here, so the exception filter answers it. */
  authFault?: unknown;
};

/** Passport guards that report failures as our typed error instead of Nest's bare 401. */
class StrictPassportGuard extends AuthGuard(['jwt']) {
  override handleRequest<T>(error: unknown, user: T): T {
    return principalOrRefusal(error, user, 'Invalid or expired access token.');
  }
}
class ApiKeyPassportGuard extends AuthGuard(['api-key']) {
  override handleRequest<T>(error: unknown, user: T): T {
    return principalOrRefusal(error, user, 'Invalid, revoked or expired API key.');
  }
}

/**
 * The global, default-deny guard. A route is open only with @Public(); API keys only where
 * @ApiKeyAllowed() says so; MCP OAuth tokens only where @McpOAuthAllowed() says so; @Roles()
 * restricts JWT principals. The credential's shape says which check it needs: `loci_...` is an
 * API key, `loci-mcp-at_...` an MCP access token, anything else must be a JWT.
 */
@Injectable()
export class PrincipalGuard implements CanActivate {
  private readonly jwtGuard = new StrictPassportGuard();
  private readonly apiKeyGuard = new ApiKeyPassportGuard();

  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;

    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const credential = credentialFrom(req);
    if (!credential) throw new UnauthenticatedError('Authentication required: send a Bearer token or an X-API-Key.');

    if (looksLikeApiKey(credential)) {
      if (!this.reflector.getAllAndOverride<boolean>(API_KEY_ALLOWED, targets)) {
        throw new ForbiddenError('This route does not accept API keys; sign in to the dashboard.');
      }
      await this.apiKeyGuard.canActivate(context);
    } else if (looksLikeMcpAccessToken(credential)) {
      if (!this.reflector.getAllAndOverride<boolean>(MCP_OAUTH_ALLOWED, targets)) {
        throw new UnauthenticatedError('This token is for the MCP server (/mcp) only.');
      }
      // The bearer middleware in front of the route checked it against the store (token, user,
      // tenant) and left the principal; a route without that middleware accepts none.
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- the caught value itself, passed on unchanged to the exception filter
      if (req.authFault) throw req.authFault;
      const principal = req.auth?.token === credential ? req.auth.extra?.principal : undefined;
      if (!principal) throw new UnauthenticatedError('Invalid, revoked or expired access token.');
      req.user = principal;
    } else {
      if (req.header('x-api-key')) throw new UnauthenticatedError('X-API-Key must hold a loci_ API key.');
      await this.jwtGuard.canActivate(context);
    }

    const principal = req.user as Principal;
    req.principal = principal;
    const roles = this.reflector.getAllAndOverride<UserRole[] | undefined>(ROLES, targets);
    // An MCP token acts for its user: the user's role (as stored now) bounds it as it bounds their session.
    if (principal.kind !== 'api_key' && roles && !roles.includes(principal.role)) {
      throw new ForbiddenError('Your role may not do this.');
    }
    if (principal.kind !== 'jwt') {
      const needed = this.reflector.getAllAndOverride<ApiKeyScope[] | undefined>(API_KEY_SCOPES, targets) ?? ['read', 'write'];
      const missing = needed.filter((scope) => !principal.scopes.includes(scope));
      if (missing.length > 0) throw new InsufficientScopeError(missing);
    }
    return true;
  }
}
