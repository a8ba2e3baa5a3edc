import { Injectable } from '@nestjs/common';
import { ForbiddenError, UnauthenticatedError, ValidationError } from '@loci/common';
import { UsersRepository } from '@loci/db';
import { AccessToken, AccessTokenIssuer } from './access-token-issuer';
import { LoginThrottleService } from './login-throttle.service';
import { hashPassword, verifyPassword } from './password-hasher';

/**
 * A signed-in user changes their own password. The token version moves on with it, so every
 * token issued before (a stolen one included) stops at once; the reply is a fresh token, so the
 * caller stays signed in. A wrong current password is a guess at the account's password, so it
 * is counted and locked out like a failed login (the same counters: LoginThrottleService).
 */
@Injectable()
export class PasswordChangeService {
  constructor(
    private readonly users: UsersRepository,
    private readonly tokens: AccessTokenIssuer,
    private readonly throttle: LoginThrottleService,
  ) {}

  async change(userId: string, currentPassword: string, newPassword: string, clientAddress?: string): Promise<AccessToken> {
    const user = await this.users.findById(userId);
    if (!user) throw new UnauthenticatedError('This user no longer exists.');
    // A 403, not a 401: the token is good, and a client that signs out on 401 should not here.
    const wrongPassword = new ForbiddenError('The current password is wrong.');
    await this.throttle.attempt(
      user.email,
      clientAddress,
      async () => {
        if (!(await verifyPassword(currentPassword, user.passwordHash))) throw wrongPassword;
      },
      (error) => error === wrongPassword,
    );
    if (newPassword === currentPassword) {
      throw new ValidationError('The new password is the current one.', [
        { loc: ['body', 'new_password'], msg: 'must differ from the current password', type: 'value_error' },
      ]);
    }
    const tokenVersion = await this.users.setPassword(user.id, await hashPassword(newPassword));
    if (tokenVersion === undefined) throw new UnauthenticatedError('This user no longer exists.');
    return this.tokens.issue({ ...user, tokenVersion });
  }
}
