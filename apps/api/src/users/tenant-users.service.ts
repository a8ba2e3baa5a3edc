import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@loci/common';
import { hashPassword } from '@loci/auth';
import { TenantsRepository, TenantUserChange, TenantUserOutcome, UserRole, UserRow, UsersRepository } from '@loci/db';

/**
 * A tenant's users, as its admins (their own tenant) and operators (any tenant) manage them.
 * A tenant always keeps an active admin: the last one cannot be demoted, disabled or deleted,
 * by anyone, so no tenant is locked out of its own administration.
 */
@Injectable()
export class TenantUsersService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly users: UsersRepository,
  ) {}

  async list(tenantId: string, page: { limit: number; offset: number }): Promise<UserRow[]> {
    await this.requireTenant(tenantId);
    return this.users.listByTenant(tenantId, page);
  }

  async create(tenantId: string, user: { email: string; password: string; role: UserRole }): Promise<UserRow> {
    await this.requireTenant(tenantId);
    return this.users.create({ tenantId, email: user.email, passwordHash: await hashPassword(user.password), role: user.role });
  }

  async update(tenantId: string, userId: string, change: TenantUserChange): Promise<UserRow> {
    await this.requireTenant(tenantId);
    return valueOf(await this.users.updateInTenant(tenantId, userId, change));
  }

  /** Deletes the user and revokes the API keys they created; returns those keys' ids. */
  async delete(tenantId: string, userId: string): Promise<string[]> {
    await this.requireTenant(tenantId);
    return valueOf(await this.users.deleteInTenant(tenantId, userId)).revokedApiKeyIds;
  }

  private async requireTenant(tenantId: string): Promise<void> {
    if (!(await this.tenants.findById(tenantId))) throw new NotFoundError('No such tenant.');
  }
}

function valueOf<T>(outcome: TenantUserOutcome<T>): T {
  switch (outcome.kind) {
    case 'done':
      return outcome.value;
    case 'not_found':
      throw new NotFoundError('No such user in this tenant.');
    case 'last_admin':
      throw new ConflictError("This is the tenant's last active admin: make another user admin first.");
  }
}
