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

  async onApplicationBootstrap(): Promise<void> {
    const operator = this.settings.bootstrapOperator;
    if (!operator) return;
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
}
