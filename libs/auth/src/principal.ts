import type { ApiKeyScope, TenantRow, UserRole } from '@loci/db';

/**
 * Who is calling: a dashboard user (JWT), a tenant's program (API key) or an MCP client a user
 * authorized (OAuth). An API key's principal
 * carries its tenant's row as read with the key (in the same request, the same query), so that
 * the request does not read it again. A JWT principal's tenant and role are the user's as stored
 * now (read on every request), not as they were when the token was issued.
 */
export type Principal =
  | {
      kind: 'jwt';
      userId: string;
      tenantId: string | null;
      role: UserRole;
      /** The tenant's suspension as read with the user (TenantStatusGuard refuses a suspended one). */
      tenantSuspendedAt?: Date | null;
      /** The tenant's `answer_language` as read with the user (the no-answer sentence's language). */
      tenantAnswerLanguage?: string | null;
    }
  | {
      kind: 'api_key';
      keyId: string;
      tenantId: string;
      role: null;
      scopes: ApiKeyScope[];
      tenant?: TenantRow;
      /** The key's own requests a minute, as read with the key (null: only the tenant's rate). */
      requestsPerMinute?: number | null;
    }
  | {
      /**
       * An MCP client's OAuth access token (only on routes that say `@McpOAuthAllowed()`): it acts
       * for the user who consented, in their tenant, with their role as stored now and the scopes
       * they granted.
       */
      kind: 'oauth';
      grantId: string;
      clientId: string;
      userId: string;
      tenantId: string;
      role: UserRole;
      scopes: ApiKeyScope[];
      tenantSuspendedAt: Date | null;
      tenantAnswerLanguage: string | null;
    };

/** The claims Loci puts in its access tokens. */
export interface AccessTokenClaims {
  sub: string;
  tid?: string;
  role: UserRole;
  /** The user's token version at issue: a token whose version is behind the user's is refused. */
  ver: number;
}

export const JWT_ISSUER = 'loci';
export const JWT_AUDIENCE = 'loci-api';
