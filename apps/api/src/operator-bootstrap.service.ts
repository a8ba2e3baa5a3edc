import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConflictError } from '@loci/common';
import { hashPassword } from '@loci/auth';
import { Settings, SETTINGS } from '@loci/config';
import { UsersRepository } from '@loci/db';

/**
 * Creates the first operator from LOCI_BOOTSTRAP_OPERATOR_EMAIL/_PASSWORD when no user has
 * that email. It never changes an existing user: a password changed later is not reset.
 */
@Injectable()
export class OperatorBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('OperatorBootstrap');

  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly users: UsersRepository,
  ) {}

  /** Set at boot when the store has no user at all: nobody can sign in yet. */
  private firstRun = false;

  async onApplicationBootstrap(): Promise<void> {
    const operator = this.settings.bootstrapOperator;
    if (!operator) {
      this.firstRun = !(await this.users.exists());
      return;
    }
    const existing = await this.users.findByEmail(operator.email);
    if (existing) {
      if (existing.role !== 'operator') {
        this.logger.warn(`LOCI_BOOTSTRAP_OPERATOR_EMAIL belongs to a ${existing.role}; no operator was created`);
      }
      return;
    }
    try {
      await this.users.create({
        tenantId: null,
        email: operator.email,
        passwordHash: await hashPassword(operator.password),
        role: 'operator',
      });
      this.logger.log(`bootstrap operator ${operator.email} created`);
    } catch (error) {
      // Another instance booting at the same moment created it first.
      if (!(error instanceof ConflictError)) throw error;
    }
  }

  /**
   * What a newcomer needs when nobody can sign in: how to create the first operator. main.ts
   * logs it after "listening", as the last line they read; undefined once any user exists.
   */
  firstRunHint(): string | undefined {
    if (!this.firstRun) return undefined;
    return (
      'no user exists yet, so nobody can sign in. Create the first operator: restart with ' +
      'LOCI_BOOTSTRAP_OPERATOR_EMAIL=<email> LOCI_BOOTSTRAP_OPERATOR_PASSWORD=<at least 12 characters> ' +
      '(created at boot if no user has that email), or stop the server and run `npm run loci -- init`, ' +
      'which generates a password and prints it once'
    );
  }
}
