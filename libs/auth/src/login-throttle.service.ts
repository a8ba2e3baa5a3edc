import { Inject, Injectable, Logger } from '@nestjs/common';
import { LimitExceededError, UnauthenticatedError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import type { UserRow } from '@loci/db';
import { AttemptPolicy, attemptKeys, LIMIT_STORE, LimitStore } from '@loci/quota';
import { AccessToken } from './access-token-issuer';
import { LoginService } from './login.service';

/** Asked of a client that could not be checked because the limit store is unreachable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export const tooManyLoginAttempts = (retryAfterSeconds: number) =>
  new LimitExceededError(429, { error: 'too_many_login_attempts', retry_after: retryAfterSeconds }, retryAfterSeconds);

/**
 * Login as the HTTP route does it: throttled per email and per client address (issue 15).
 *
 * Each attempt is counted before the password is checked and given back when it was not a
 * failure, so concurrent guesses cannot all pass one check. While a key is locked nothing is
 * checked at all: the right password is refused as well (else the lock would tell an attacker
 * when a guess was right), and the answer is the same whether or not the email has an account.
 * A success clears the email's failures. With the limit store unreachable, logins fail closed
 * (503 `limits_unavailable`), as spending requests do.
 *
 * Fixtures and tools that log in from inside the process call LoginService directly.
 */
@Injectable()
export class LoginThrottleService {
  private readonly logger = new Logger('LoginThrottle');

  constructor(
    private readonly logins: LoginService,
    @Inject(LIMIT_STORE) private readonly store: LimitStore,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  async login(email: string, password: string, clientAddress: string | undefined): Promise<AccessToken> {
    return this.attempt(email, clientAddress, () => this.logins.login(email, password), (error) => error instanceof UnauthenticatedError);
  }

  /** The user these credentials are (MCP's consent page), throttled as a login is, on the same counters. */
  async authenticate(email: string, password: string, clientAddress: string | undefined): Promise<UserRow> {
    return this.attempt(email, clientAddress, () => this.logins.authenticate(email, password), (error) => error instanceof UnauthenticatedError);
  }

  /**
   * Runs `judge` (a check of the account's password) as one counted attempt against the email
   * and the client address. An error for which `isWrongPassword` holds stays counted; any other
   * outcome gives the attempt back, and a success clears the email's failures.
   */
  async attempt<T>(email: string, clientAddress: string | undefined, judge: () => Promise<T>, isWrongPassword: (error: unknown) => boolean): Promise<T> {
    const taken = await this.take(this.keysFor(email, clientAddress));
    let result: T;
    try {
      result = await judge();
    } catch (error) {
      // A wrong password stays counted; anything else (the database down) was no guess.
      if (!isWrongPassword(error)) await this.giveBack(taken);
      throw error;
    }
    const [emailKey, ...others] = taken;
    await this.quietly(() => this.store.attempts.clear(emailKey));
    await this.giveBack(others);
    return result;
  }

  /** Counts the attempt on every key, or refuses it (429) and counts it on none. */
  private async take(keys: Array<{ key: string; policy: AttemptPolicy }>): Promise<string[]> {
    const taken: string[] = [];
    try {
      for (const { key, policy } of keys) {
        const admission = await this.store.attempts.take(key, policy);
        if (!admission.ok) {
          await this.giveBack(taken);
          throw tooManyLoginAttempts(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
        }
        taken.push(key);
      }
    } catch (error) {
      if (error instanceof LimitExceededError) throw error;
      this.logger.warn(`login refused, limit store unreachable: ${error instanceof Error ? error.message : error}`);
      await this.giveBack(taken);
      throw new LimitExceededError(503, { error: 'limits_unavailable' }, UNAVAILABLE_RETRY_AFTER_SECONDS);
    }
    return taken;
  }

  /** The email first: an address refused after it gives the email's attempt back. */
  private keysFor(email: string, clientAddress: string | undefined): Array<{ key: string; policy: AttemptPolicy }> {
    const login = this.settings.login;
    const keys = [
      {
        key: attemptKeys.loginEmail(email),
        policy: { maxFailures: login.maxFailuresPerEmail, windowMs: login.windowMs, backoffAfter: login.backoffAfterFailures, backoffBaseMs: login.backoffBaseMs },
      },
    ];
    if (login.maxFailuresPerAddress > 0) {
      // No backoff per address: one office behind one address should not wait for its neighbours' typos.
      const max = login.maxFailuresPerAddress;
      keys.push({ key: attemptKeys.loginAddress(clientAddress), policy: { maxFailures: max, windowMs: login.windowMs, backoffAfter: max, backoffBaseMs: 1 } });
    }
    return keys;
  }

  private async giveBack(keys: string[]): Promise<void> {
    for (const key of keys) await this.quietly(() => this.store.attempts.giveBack(key));
  }

  /** After the answer is decided, a store error must not change it: the counter just keeps an extra attempt. */
  private async quietly(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.logger.warn(`login attempt counter not updated: ${error instanceof Error ? error.message : error}`);
    }
  }
}
