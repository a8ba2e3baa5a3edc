import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@loci/common';
import { ApiKeyOptions, ApiKeysService, CreatedApiKey, hashPassword } from '@loci/auth';
import { ApiKeyRow, NewTenant, TenantLimitsPatch, TenantRow, TenantsRepository, UserRole, UserRow, UsersRepository } from '@loci/db';
import { SpendControl } from '@loci/quota';
import { TIER_DEFAULT_LIMITS } from './tier-defaults';

/** What operators do to tenants: create them, their users and their API keys. */
@Injectable()
export class TenantAdminService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly users: UsersRepository,
    private readonly apiKeys: ApiKeysService,
    private readonly spend: SpendControl,
  ) {}

  /** A new tenant starts with its tier's default limits. */
  createTenant(tenant: NewTenant): Promise<TenantRow> {
    return this.tenants.create({ ...TIER_DEFAULT_LIMITS[tenant.tier], ...tenant });
  }

  async updateLimits(tenantId: string, patch: TenantLimitsPatch): Promise<TenantRow> {
    const updated = await this.tenants.updateLimits(tenantId, patch);
    if (!updated) throw new NotFoundError('No such tenant.');
    // Committed: every instance's next request reads the tenant's limits again.
    await this.spend.limitsChanged();
    return updated;
  }

  listTenants(page: { limit: number; offset: number }): Promise<TenantRow[]> {
    return this.tenants.list(page);
  }

  async getTenant(tenantId: string): Promise<TenantRow> {
    const tenant = await this.tenants.findById(tenantId);
    if (!tenant) throw new NotFoundError('No such tenant.');
    return tenant;
  }

  async createUser(tenantId: string, user: { email: string; password: string; role: UserRole }): Promise<UserRow> {
    await this.getTenant(tenantId);
    return this.users.create({
      tenantId,
      email: user.email,
      passwordHash: await hashPassword(user.password),
      role: user.role,
    });
  }

  async createApiKey(tenantId: string, name: string, createdByUserId: string | null, options: ApiKeyOptions = {}): Promise<CreatedApiKey> {
    await this.getTenant(tenantId);
    return this.apiKeys.create(tenantId, name, createdByUserId, options);
  }

  async updateApiKey(tenantId: string, keyId: string, changes: { name?: string; requestsPerMinute?: number | null }): Promise<ApiKeyRow> {
    await this.getTenant(tenantId);
    return this.apiKeys.update(tenantId, keyId, changes);
  }

  async revokeApiKey(tenantId: string, keyId: string): Promise<void> {
    await this.getTenant(tenantId);
    await this.apiKeys.revoke(tenantId, keyId);
  }
}
