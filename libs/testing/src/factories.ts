import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { ApiKeyOptions, ApiKeysService, hashPassword, LoginService } from '@loci/auth';
import { TenantBilling, TenantRow, TenantsRepository, TenantTier, UserRole, UsersRepository } from '@loci/db';

// Cheap scrypt parameters for fixtures only: the hash format carries them, so login still
// verifies through the production code path, just faster.
const FIXTURE_HASH_PARAMS = { log2N: 10, r: 8, p: 1 };

const unique = () => randomBytes(4).toString('hex');

export async function createTenant(
  app: INestApplication,
  options: { name?: string; tier?: TenantTier; billing?: TenantBilling } = {},
): Promise<TenantRow> {
  return app.get(TenantsRepository).create({
    name: options.name ?? `Tenant ${unique()}`,
    tier: options.tier ?? 'free',
    billing: options.billing ?? 'platform',
  });
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  token: string;
}

/** Creates a user (tenant member, admin, or an operator with tenantId null) and logs in. */
export async function createUser(app: INestApplication, tenantId: string | null, role: UserRole): Promise<TestUser> {
  const email = `${role}-${unique()}@example.test`;
  const password = `password-${unique()}-${unique()}`;
  const user = await app.get(UsersRepository).create({
    tenantId,
    email,
    role,
    passwordHash: await hashPassword(password, FIXTURE_HASH_PARAMS),
  });
  const { access_token } = await app.get(LoginService).login(email, password);
  return { id: user.id, email, password, token: access_token };
}

/** A key with every scope and no expiry, unless `options` say otherwise (an expiry may be past). */
export async function createApiKey(app: INestApplication, tenantId: string, options: ApiKeyOptions = {}): Promise<{ id: string; key: string }> {
  const created = await app.get(ApiKeysService).create(tenantId, `key ${unique()}`, null, options);
  return { id: created.row.id, key: created.key };
}

/** A tenant with an admin, a member and an API key: the usual cast of a tenancy test. */
export async function createTenantWithPeople(app: INestApplication) {
  const tenant = await createTenant(app);
  const [admin, member, apiKey] = await Promise.all([
    createUser(app, tenant.id, 'admin'),
    createUser(app, tenant.id, 'member'),
    createApiKey(app, tenant.id),
  ]);
  return { tenant, admin, member, apiKey };
}
