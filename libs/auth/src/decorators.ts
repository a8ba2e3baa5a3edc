import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { ApiKeyScope, UserRole } from '@loci/db';
import type { Principal } from './principal';

export const IS_PUBLIC = 'loci:auth:public';
export const API_KEY_ALLOWED = 'loci:auth:api-key-allowed';
export const ROLES = 'loci:auth:roles';
export const API_KEY_SCOPES = 'loci:auth:api-key-scopes';
export const MCP_OAUTH_ALLOWED = 'loci:auth:mcp-oauth-allowed';

/** The OpenAPI extension by which the document declares a public route `security: []` (apps/api/src/openapi.ts). */
export const PUBLIC_OPERATION_EXTENSION = 'x-loci-public';

/** The route needs no credentials (and its OpenAPI operation says so). */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiExtension(PUBLIC_OPERATION_EXTENSION, true));

/**
 * The route accepts a tenant API key as well as a JWT (the default is JWT only), when the key
 * has the scope named: `read` (questions, context, listings), `write` (documents, remember,
 * deletes), or `null` for routes any key may call (who am I). A route that names no scope asks
 * for every scope, so a route added without thought is closed to restricted keys.
 */
export const ApiKeyAllowed = (options: { scope?: ApiKeyScope | null } = {}) =>
  applyDecorators(
    SetMetadata(API_KEY_ALLOWED, true),
    SetMetadata<string, ApiKeyScope[]>(API_KEY_SCOPES, options.scope === undefined ? ['read', 'write'] : options.scope === null ? [] : [options.scope]),
  );

/**
 * The route accepts an MCP client's OAuth access token, verified by the bearer middleware that
 * the app mounts in front of it (apps/api/src/mcp/oauth). Only /mcp: the tokens are issued
 * for that resource and nothing else.
 */
export const McpOAuthAllowed = () => SetMetadata(MCP_OAUTH_ALLOWED, true);

/** JWT principals must have one of these roles. API keys are governed by @ApiKeyAllowed. */
export const Roles = (...roles: UserRole[]) => SetMetadata(ROLES, roles);

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal => context.switchToHttp().getRequest().principal,
);
