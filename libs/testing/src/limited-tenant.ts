import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { PlatformLimitsRepository, TenantBilling, TenantsRepository } from '@loci/db';
import { SpendControl } from '@loci/quota';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenant, createUser } from './factories';

export type TenantLimits = Partial<Parameters<TenantsRepository['updateLimits']>[1]>;

/**
 * The cast of a spend-control test: a tenant with these limits (every other one unlimited), one
 * processed document to answer from ("Alice works at Acme", made unique), and a member.
 */
export async function createLimitedTenant(app: INestApplication, limits: TenantLimits, billing: TenantBilling = 'platform') {
  const tenant = await createTenant(app, { billing });
  await setTenantLimits(app, tenant.id, {
    dailyCostCapMicros: null,
    monthlyCostCapMicros: null,
    dailyQueryQuota: null,
    maxConcurrentQueries: null,
    ...limits,
  });
  await app.get(DocumentsService).submit(tenant.id, { name: 'd', mimeType: 'text/plain', text: `Alice works at Acme ${randomUUID()}.` });
  await app.get(IngestWorker).drain();
  const member = await createUser(app, tenant.id, 'member');
  return { tenant, member };
}

/**
 * Changes a tenant's limits as the operators' route does: the row committed, then the limits
 * version bumped, so every instance's next request reads it again (a write left without the
 * bump is seen within LIMIT_ROWS_TTL_MS).
 */
export async function setTenantLimits(app: INestApplication, tenantId: string, limits: TenantLimits): Promise<void> {
  await app.get(TenantsRepository).updateLimits(tenantId, limits);
  await app.get(SpendControl).limitsChanged();
}

/** The platform's daily cap, changed as the operators' route does (see setTenantLimits). */
export async function setPlatformCap(app: INestApplication, dailyCostCapMicros: number | null): Promise<void> {
  await app.get(PlatformLimitsRepository).set(dailyCostCapMicros);
  await app.get(SpendControl).limitsChanged();
}
