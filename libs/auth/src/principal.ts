import type { UserRole } from '@loci/db';

/** Who is calling: a dashboard user (JWT) or a tenant's program (API key). */
export type Principal =
  | { kind: 'jwt'; userId: string; tenantId: string | null; role: UserRole }
  | { kind: 'api_key'; keyId: string; tenantId: string; role: null };

/** The claims Loci puts in its access tokens. */
export interface AccessTokenClaims {
  sub: string;
  tid?: string;
  role: UserRole;
}

export const JWT_ISSUER = 'loci';
export const JWT_AUDIENCE = 'loci-api';
