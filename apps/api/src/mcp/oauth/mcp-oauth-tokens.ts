import { Injectable } from '@nestjs/common';
import { InvalidGrantError, InvalidScopeError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashMcpSecret, MCP_ACCESS_TOKEN_MARKER, MCP_REFRESH_TOKEN_MARKER, newMcpSecret, type Principal } from '@loci/auth';
import { ApiKeyScope, McpOauthRepository, McpOauthTokenState } from '@loci/db';

/** An hour, as dashboard tokens: short enough that a leaked one ends soon, refreshed without the user. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A month: how long an agent may go unused and still refresh without asking its user again. */
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** What a consent grants: one user of one tenant, to one client, for these scopes and this resource. */
export interface Grant {
  grantId: string;
  tenantId: string;
  userId: string;
  clientId: string;
  scopes: ApiKeyScope[];
  resource: string;
}

export type OAuthPrincipal = Extract<Principal, { kind: 'oauth' }>;

/**
 * MCP's OAuth tokens: issued in pairs (access and refresh) for a grant, verified on every /mcp
 * request against the store (the token, its user and tenant as they are now), rotated on
 * refresh, revoked a grant at a time. A token is refused once revoked or expired, once its user
 * is deleted or disabled or has changed their password (the user's token version, as dashboard
 * tokens), or once its user is no longer a member of the tenant it was issued in.
 */
@Injectable()
export class McpOAuthTokens {
  constructor(private readonly store: McpOauthRepository) {}

  /** Issues an access and a refresh token for the grant, to a user whose token version is `tokenVersion`. */
  async issue(grant: Grant, tokenVersion: number, now = new Date()): Promise<OAuthTokens> {
    const access = newMcpSecret(MCP_ACCESS_TOKEN_MARKER);
    const refresh = newMcpSecret(MCP_REFRESH_TOKEN_MARKER);
    const common = {
      tenantId: grant.tenantId,
      grantId: grant.grantId,
      clientId: grant.clientId,
      userId: grant.userId,
      tokenVersion,
      scopes: grant.scopes,
      resource: grant.resource,
    };
    await this.store.createTokens([
      { ...common, kind: 'access', tokenHash: hashMcpSecret(access), expiresAt: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000) },
      { ...common, kind: 'refresh', tokenHash: hashMcpSecret(refresh), expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000) },
    ]);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, refresh_token: refresh, scope: grant.scopes.join(' ') };
  }

  /** The SDK's bearer check: the token's AuthInfo, carrying the principal the guard hands to /mcp. */
  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const state = await this.store.findToken(hashMcpSecret(token));
    if (!state || state.token.kind !== 'access' || !isLive(state, new Date())) throw new InvalidTokenError('Invalid, revoked or expired access token.');
    const { token: row, user, tenant } = state;
    const principal: OAuthPrincipal = {
      kind: 'oauth',
      grantId: row.grantId,
      clientId: row.clientId,
      userId: user.id,
      tenantId: row.tenantId,
      role: user.role,
      scopes: row.scopes,
      tenantSuspendedAt: tenant.suspendedAt,
      tenantAnswerLanguage: tenant.answerLanguage,
    };
    return {
      token,
      clientId: row.clientId,
      scopes: row.scopes,
      expiresAt: Math.floor(row.expiresAt.getTime() / 1000),
      resource: row.resource ? new URL(row.resource) : undefined,
      extra: { principal },
    };
  }

  /**
   * A refresh: the refresh token is spent (rotation) and a new pair issued for the same grant,
   * narrowed to `scopes` when asked. A refresh token presented again after it was spent means
   * two parties hold it: the whole grant is revoked.
   */
  async refresh(clientId: string, refreshToken: string, scopes: string[] | undefined): Promise<OAuthTokens> {
    const now = new Date();
    const state = await this.store.findToken(hashMcpSecret(refreshToken));
    if (!state || state.token.kind !== 'refresh' || state.token.clientId !== clientId) throw new InvalidGrantError('Invalid refresh token.');
    const { token: row } = state;
    if (row.revokedAt !== null) {
      await this.store.revokeGrant(row.tenantId, row.grantId, now);
      throw new InvalidGrantError('Invalid refresh token.');
    }
    if (!isLive(state, now)) throw new InvalidGrantError('Invalid refresh token.');
    const narrowed = scopes?.filter((scope) => scope !== '') ?? row.scopes;
    if (narrowed.some((scope) => !(row.scopes as string[]).includes(scope))) throw new InvalidScopeError('A refresh cannot add scopes the user did not grant.');
    if (!(await this.store.revokeTokenOnce(row.tenantId, row.id, now))) {
      await this.store.revokeGrant(row.tenantId, row.grantId, now);
      throw new InvalidGrantError('Invalid refresh token.');
    }
    const grant = { grantId: row.grantId, tenantId: row.tenantId, userId: row.userId, clientId, scopes: narrowed as ApiKeyScope[], resource: row.resource ?? '' };
    return this.issue(grant, row.tokenVersion, now);
  }

  /** RFC 7009: revokes the token's whole grant when the token is the client's; anything else is silently nothing. */
  async revoke(clientId: string, token: string): Promise<void> {
    const state = await this.store.findToken(hashMcpSecret(token));
    if (state && state.token.clientId === clientId) await this.store.revokeGrant(state.token.tenantId, state.token.grantId, new Date());
  }

  /** Every token of the grant (a replayed authorization code). */
  revokeGrant(tenantId: string, grantId: string): Promise<void> {
    return this.store.revokeGrant(tenantId, grantId, new Date());
  }
}

/** Not revoked or expired, and its user still the one who consented: enabled, same token version, same tenant, not an operator. */
function isLive({ token, user }: McpOauthTokenState, now: Date): boolean {
  return (
    token.revokedAt === null &&
    token.expiresAt.getTime() > now.getTime() &&
    user.disabledAt === null &&
    user.tokenVersion === token.tokenVersion &&
    user.tenantId === token.tenantId &&
    user.role !== 'operator'
  );
}
