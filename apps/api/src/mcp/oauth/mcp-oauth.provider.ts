import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidClientMetadataError, InvalidGrantError, InvalidScopeError, InvalidTargetError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { hashMcpSecret, newMcpSecret } from '@loci/auth';
import { Settings, SETTINGS } from '@loci/config';
import { ApiKeyScope, McpOauthRepository, UserRow, UsersRepository } from '@loci/db';
import { CONSENT_COOKIE, sendConsentPage } from './consent-page';
import { CONSENT_TTL_MS, consentKeyFrom, ConsentRequest, newNonce, signConsentRequest } from './consent-request';
import { McpOAuthTokens } from './mcp-oauth-tokens';
import { mcpResourceOf, publicOrigin } from './public-origin';

export const MCP_SCOPES: ApiKeyScope[] = ['read', 'write'];
/** Long enough for a client to be sent back and post it, short enough that a leaked one is useless. */
const CODE_TTL_MS = 5 * 60 * 1000;
/** A registration is what every later consent page shows; bounded so it cannot be made a store filler. */
const MAX_REGISTRATION_BYTES = 8 * 1024;
const MAX_REDIRECT_URIS = 10;

/**
 * Loci as the OAuth authorization server of its own MCP server, behind the SDK's handlers
 * (mcpAuthRouter's authorize, token, register and revoke): public clients registered
 * dynamically, authorization code with PKCE (S256, checked by the SDK), consent by a signed-in
 * Loci user on a page of ours, tokens bound to that user's tenant and role (McpOAuthTokens).
 */
@Injectable()
export class McpOAuthProvider implements OAuthServerProvider {
  readonly consentKey: Buffer;

  constructor(
    private readonly store: McpOauthRepository,
    private readonly users: UsersRepository,
    readonly tokens: McpOAuthTokens,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {
    this.consentKey = consentKeyFrom(settings.jwt.secret);
  }

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (clientId) => this.store.findClient(clientId) as Promise<OAuthClientInformationFull | undefined>,
      registerClient: async (client) => {
        // Every client is public: the SDK's client check compares a stored secret in the clear,
        // and Loci keeps no secret in the clear. PKCE binds each code to the client that asked.
        const { client_secret: _secret, client_secret_expires_at: _expiry, ...rest } = client;
        const registered = { ...rest, token_endpoint_auth_method: 'none' } as OAuthClientInformationFull;
        const stored = JSON.stringify(registered);
        if (Buffer.byteLength(stored) > MAX_REGISTRATION_BYTES) throw new InvalidClientMetadataError(`The registration is over ${MAX_REGISTRATION_BYTES} bytes.`);
        if (registered.redirect_uris.length > MAX_REDIRECT_URIS) throw new InvalidClientMetadataError(`At most ${MAX_REDIRECT_URIS} redirect_uris.`);
        // PostgreSQL's jsonb cannot hold \u0000: refused here as bad metadata, not failed as a store error.
        if (stored.includes('\\u0000')) throw new InvalidClientMetadataError('The registration contains a NUL character.');
        await this.store.registerClient(registered.client_id, registered);
        return registered;
      },
    };
  }

  /** Shows the consent page; the form posts to /oauth/consent (consent.handler.ts), which issues the code. */
  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const scopes = params.scopes?.filter((scope) => scope !== '') ?? [];
    const unknown = scopes.filter((scope) => !(MCP_SCOPES as string[]).includes(scope));
    if (unknown.length > 0) throw new InvalidScopeError(`Unknown scope ${unknown.join(', ')}: Loci's scopes are ${MCP_SCOPES.join(' and ')}.`);
    const resource = mcpResourceOf(publicOrigin(res.req, this.settings.http));
    // RFC 8707: Loci issues tokens for its MCP server only.
    if (params.resource && stripSlash(params.resource.href) !== resource) throw new InvalidTargetError(`This server issues tokens for ${resource} only.`);
    const request: ConsentRequest = {
      clientId: client.client_id,
      redirectUri: params.redirectUri,
      codeChallenge: params.codeChallenge,
      scopes: scopes.length > 0 ? (scopes as ApiKeyScope[]) : MCP_SCOPES,
      state: params.state,
      resource,
      nonce: newNonce(),
      expiresAt: Date.now() + CONSENT_TTL_MS,
    };
    res.cookie(CONSENT_COOKIE, request.nonce, {
      httpOnly: true,
      sameSite: 'strict',
      secure: res.req.secure,
      path: '/oauth',
      maxAge: CONSENT_TTL_MS,
    });
    sendConsentPage(res, 200, {
      clientName: client.client_name ?? client.client_id,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      signedRequest: signConsentRequest(request, this.consentKey),
    });
    return Promise.resolve();
  }

  /** The code a consent created for this user: stored as its hash, with everything it is bound to. */
  async createCode(request: ConsentRequest, user: UserRow & { tenantId: string }): Promise<string> {
    const code = newMcpSecret();
    await this.store.createCode({
      tenantId: user.tenantId,
      codeHash: hashMcpSecret(code),
      grantId: randomUUID(),
      clientId: request.clientId,
      userId: user.id,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: request.scopes,
      resource: request.resource,
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
    });
    return code;
  }

  /**
   * The PKCE challenge of a code the client may still exchange. A code presented again after it
   * was exchanged means it leaked: the tokens it led to are revoked (OAuth 2.1, 4.1.3).
   */
  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    const code = await this.store.findCode(hashMcpSecret(authorizationCode));
    if (!code || code.clientId !== client.client_id) throw new InvalidGrantError('Invalid authorization code.');
    if (code.usedAt !== null) {
      await this.tokens.revokeGrant(code.tenantId, code.grantId);
      throw new InvalidGrantError('The authorization code was already used.');
    }
    if (code.expiresAt.getTime() <= Date.now()) throw new InvalidGrantError('The authorization code has expired.');
    return code.codeChallenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const code = await this.store.consumeCode(hashMcpSecret(authorizationCode), client.client_id, new Date());
    if (!code) throw new InvalidGrantError('Invalid authorization code.');
    if (redirectUri !== undefined && redirectUri !== code.redirectUri) throw new InvalidGrantError('redirect_uri differs from the authorization request.');
    if (resource && code.resource && stripSlash(resource.href) !== code.resource) throw new InvalidTargetError(`The code was issued for ${code.resource}.`);
    // The user as they are now: disabled, deleted or moved since the consent, no tokens.
    const user = await this.users.findCredentialState(code.userId);
    if (!user || user.disabledAt !== null || user.tenantId !== code.tenantId || user.role === 'operator') throw new InvalidGrantError('The user who consented can no longer sign in.');
    const grant = { grantId: code.grantId, tenantId: code.tenantId, userId: code.userId, clientId: client.client_id, scopes: code.scopes, resource: code.resource ?? '' };
    return this.tokens.issue(grant, user.tokenVersion);
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[]): Promise<OAuthTokens> {
    return this.tokens.refresh(client.client_id, refreshToken, scopes);
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    return this.tokens.verifyAccessToken(token);
  }

  revokeToken(client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    return this.tokens.revoke(client.client_id, request.token);
  }
}

const stripSlash = (url: string) => url.replace(/\/+$/, '');
