import { Inject, Injectable } from '@nestjs/common';
import { asc, eq } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { isUuid } from '../ids';
import { TenantBilling, TenantRow, tenants, TenantTier } from '../schema';

export interface TenantLimits {
  dailyCostCapMicros: number | null;
  monthlyCostCapMicros: number | null;
  dailyQueryQuota: number | null;
  maxConcurrentQueries: number | null;
  maxRunningJobs: number | null;
  requestsPerMinute: number | null;
  requestBurst: number | null;
  dailyDocumentQuota: number | null;
  dailyIngestMb: number | null;
  maxStoredMb: number | null;
}

export interface NewTenant extends Partial<TenantLimits> {
  name: string;
  tier: TenantTier;
  billing: TenantBilling;
}

export type TenantLimitsPatch = Partial<TenantLimits & { tier: TenantTier; billing: TenantBilling }>;

@Injectable()
export class TenantsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async create(tenant: NewTenant): Promise<TenantRow> {
    const [row] = await this.database.db.insert(tenants).values(tenant).returning();
    return row;
  }

  async findById(tenantId: string): Promise<TenantRow | undefined> {
    if (!isUuid(tenantId)) return undefined;
    const [row] = await this.database.db.select().from(tenants).where(eq(tenants.id, tenantId));
    return row;
  }

  async list(page: { limit: number; offset: number }): Promise<TenantRow[]> {
    return this.database.db
      .select()
      .from(tenants)
      .orderBy(asc(tenants.createdAt), asc(tenants.id))
      .limit(page.limit)
      .offset(page.offset);
  }

  /** Stores a tenant's sealed provider key; false when there is no such tenant. */
  async setOwnLlmKey(tenantId: string, provider: string, sealedKey: string): Promise<boolean> {
    if (!isUuid(tenantId)) return false;
    const rows = await this.database.db
      .update(tenants)
      .set({ ownLlmProvider: provider, ownLlmKeyEncrypted: sealedKey, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
      .returning({ id: tenants.id });
    return rows.length > 0;
  }

  /** The tenant's own settings (its admins change them): the language of Loci's own sentences. */
  updateSettings(tenantId: string, patch: { answerLanguage?: string | null }): Promise<TenantRow | undefined> {
    return this.update(tenantId, patch);
  }

  /** Changes limits (and tier/billing); undefined fields stay, null means unlimited. */
  updateLimits(tenantId: string, patch: TenantLimitsPatch): Promise<TenantRow | undefined> {
    return this.update(tenantId, patch);
  }

  private async update(tenantId: string, patch: Partial<Pick<TenantRow, 'answerLanguage'>> | TenantLimitsPatch): Promise<TenantRow | undefined> {
    if (!isUuid(tenantId)) return undefined;
    const [row] = await this.database.db
      .update(tenants)
      .set({ ...patch, updatedAt: new Date() })
      .where(eq(tenants.id, tenantId))
      .returning();
    return row;
  }
}
