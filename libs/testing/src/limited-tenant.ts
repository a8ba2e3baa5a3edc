import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { TenantBilling, TenantsRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenant, createUser } from './factories';

export type TenantLimits = Partial<Parameters<TenantsRepository['updateLimits']>[1]>;

/**
 * The cast of a spend-control test: a tenant with these limits (every other one unlimited), one
 * processed document to answer from ("Alice works at Acme", made unique), and a member.
 */
export async function createLimitedTenant(app: INestApplication, limits: TenantLimits, billing: TenantBilling = 'platform') {
  const tenant = await createTenant(app, { billing });
  await app.get(TenantsRepository).updateLimits(tenant.id, {
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
