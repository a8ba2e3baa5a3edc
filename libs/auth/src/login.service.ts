import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { UnauthenticatedError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { UsersRepository } from '@loci/db';
import { hashPassword, verifyPassword } from './password-hasher';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER } from './principal';

export interface AccessToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

@Injectable()
export class LoginService {
  /**
   * An unknown email is checked against this hash so that it costs the same scrypt work as
   * a known one: response timing does not reveal which emails have accounts.
   */
  private readonly decoyHash = hashPassword('decoy password that matches nothing');

  constructor(
    private readonly users: UsersRepository,
    private readonly jwt: JwtService,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async login(email: string, password: string): Promise<AccessToken> {
    const user = await this.users.findByEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await this.decoyHash));
    if (!user || !matches) throw new UnauthenticatedError('Invalid email or password.');
    const claims: AccessTokenClaims = { sub: user.id, role: user.role, ...(user.tenantId ? { tid: user.tenantId } : {}) };
    const accessToken = await this.jwt.signAsync(claims, {
      algorithm: 'HS256',
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      expiresIn: this.settings.jwt.ttlSeconds,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.settings.jwt.ttlSeconds };
  }
}
