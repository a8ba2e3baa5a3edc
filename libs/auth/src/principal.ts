import type { TenantRow, UserRole } from '@loci/db';

/**
 * Who is calling: a dashboard user (JWT) or a tenant's program (API key). An API key's principal
 * carries its tenant's row as read with the key (in the same request, the same query), so that
 * the request does not read it again.
 */
export type Principal =
  | { kind: 'jwt'; userId: string; tenantId: string | null; role: UserRole }
  | { kind: 'api_key'; keyId: string; tenantId: string; role: null; tenant?: TenantRow };

/** The claims Loci puts in its access tokens. */
export interface AccessTokenClaims {
  sub: string;
  tid?: string;
  role: UserRole;
}

export const JWT_ISSUER = 'loci';
export const JWT_AUDIENCE = 'loci-api';
