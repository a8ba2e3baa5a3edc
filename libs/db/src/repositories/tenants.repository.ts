import { Inject, Injectable } from '@nestjs/common';
import { asc, eq } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { isUuid } from '../ids';
import { TenantBilling, TenantRow, tenants, TenantTier } from '../schema';

export interface NewTenant {
  name: string;
  tier: TenantTier;
  billing: TenantBilling;
}

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
}
