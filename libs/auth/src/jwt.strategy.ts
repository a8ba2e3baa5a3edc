import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { Settings, SETTINGS } from '@loci/config';
import { isUuid } from '@loci/db';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER, Principal } from './principal';

/**
 * Verifies Loci's own access tokens: HS256 only (so `alg: none` and tokens meant for other
 * algorithms fail), our issuer and audience, not expired.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(SETTINGS) settings: Settings) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: settings.jwt.secret,
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      ignoreExpiration: false,
    });
  }

  validate(claims: AccessTokenClaims & { exp?: number }): Principal | false {
    // jsonwebtoken checks `exp` only when present; our tokens always carry one, so require it.
    if (typeof claims.exp !== 'number') return false;
    if (typeof claims.sub !== 'string' || !['operator', 'admin', 'member'].includes(claims.role)) return false;
    // The ids become query parameters (uuid columns): a claim that is no uuid names nobody, and
    // must fail here rather than as a cast error, or as a write keyed by it, further on.
    if (!isUuid(claims.sub)) return false;
    if (claims.role !== 'operator' && claims.tid == null) return false;
    if (claims.tid != null && (typeof claims.tid !== 'string' || !isUuid(claims.tid))) return false;
    return { kind: 'jwt', userId: claims.sub, tenantId: claims.tid ?? null, role: claims.role };
  }
}
