import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { Settings, SETTINGS } from '@loci/config';
import { isUuid, UsersRepository } from '@loci/db';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER, Principal } from './principal';

/**
 * Verifies Loci's own access tokens: HS256 only (so `alg: none` and tokens meant for other
 * algorithms fail), our issuer and audience, not expired; then reads the user (one prepared
 * primary-key read, every request, every instance): a deleted or disabled user, or a token
 * version behind the user's (bumped by disable and password change), ends the token at once.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(SETTINGS) settings: Settings,
    private readonly users: UsersRepository,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: settings.jwt.secret,
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      ignoreExpiration: false,
    });
  }

  async validate(claims: AccessTokenClaims & { exp?: number }): Promise<Principal | false> {
    // jsonwebtoken checks `exp` only when present; our tokens always carry one, so require it.
    if (typeof claims.exp !== 'number') return false;
    if (typeof claims.sub !== 'string' || !['operator', 'admin', 'member'].includes(claims.role)) return false;
    // The ids become query parameters (uuid columns): a claim that is no uuid names nobody, and
    // must fail here rather than as a cast error, or as a write keyed by it, further on.
    if (!isUuid(claims.sub)) return false;
    if (claims.role !== 'operator' && claims.tid == null) return false;
    if (claims.tid != null && (typeof claims.tid !== 'string' || !isUuid(claims.tid))) return false;
    if (!Number.isSafeInteger(claims.ver) || claims.ver < 0) return false;
    const user = await this.users.findCredentialState(claims.sub);
    if (!user || user.disabledAt !== null || user.tokenVersion !== claims.ver) return false;
    return {
      kind: 'jwt',
      userId: user.id,
      tenantId: user.tenantId,
      role: user.role,
      tenantSuspendedAt: user.tenantSuspendedAt,
      tenantAnswerLanguage: user.tenantAnswerLanguage,
    };
  }
}
