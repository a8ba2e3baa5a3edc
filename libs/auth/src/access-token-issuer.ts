import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { Settings, SETTINGS } from '@loci/config';
import type { UserRow } from '@loci/db';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER } from './principal';

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

/** Signs a user's access token, carrying the user's current token version. */
@Injectable()
export class AccessTokenIssuer {
  constructor(
    private readonly jwt: JwtService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async issue(user: Pick<UserRow, 'id' | 'tenantId' | 'role' | 'tokenVersion'>): Promise<AccessToken> {
    const claims: AccessTokenClaims = {
      sub: user.id,
      role: user.role,
      ver: user.tokenVersion,
      ...(user.tenantId ? { tid: user.tenantId } : {}),
    };
    const accessToken = await this.jwt.signAsync(claims, {
      algorithm: 'HS256',
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      expiresIn: this.settings.jwt.ttlSeconds,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.settings.jwt.ttlSeconds };
  }
}
