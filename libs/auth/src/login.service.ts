import { Injectable } from '@nestjs/common';
import { UnauthenticatedError } from '@loci/common';
import { UserRow, UsersRepository } from '@loci/db';
import { AccessToken, AccessTokenIssuer } from './access-token-issuer';
import { hashPassword, verifyPassword } from './password-hasher';

@Injectable()
export class LoginService {
  /**
   * An unknown email is checked against this hash so that it costs the same scrypt work as
   * a known one: response timing does not reveal which emails have accounts.
   */
  private readonly decoyHash = hashPassword('decoy password that matches nothing');

  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: AccessTokenIssuer,
  ) {}

  async login(email: string, password: string): Promise<AccessToken> {
    return this.tokens.issue(await this.authenticate(email, password));
  }

  /** The user these credentials are, or UnauthenticatedError (the same for every reason). */
  async authenticate(email: string, password: string): Promise<UserRow> {
    const user = await this.users.findByEmail(email);
    const matches = await verifyPassword(password, user?.passwordHash ?? (await this.decoyHash));
    // A disabled user gets the wrong password's answer: the reply does not say the account exists.
    if (!user || !matches || user.disabledAt !== null) throw new UnauthenticatedError('Invalid email or password.');
    return user;
  }
}
