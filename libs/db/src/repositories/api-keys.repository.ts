import { Inject, Injectable } from '@nestjs/common';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { Database, DATABASE, statementName } from '../database';
import { isUuid } from '../ids';
import { ApiKeyRow, apiKeys, ApiKeyScope, tenants, TenantRow } from '../schema';

export interface NewApiKey {
  tenantId: string;
  name: string;
  prefix: string;
  secretHash: string;
  createdByUserId: string | null;
  /** Left out: the column's default, every scope. */
  scopes?: ApiKeyScope[];
  expiresAt?: Date | null;
  requestsPerMinute?: number | null;
}

@Injectable()
export class ApiKeysRepository {
  /**
   * Read on every API-key request, so built once and prepared (a named statement each pooled
   * connection parses and plans once) rather than built by drizzle and planned per request.
   */
  private readonly activeByPrefix;

  constructor(@Inject(DATABASE) private readonly database: Database) {
    this.activeByPrefix = this.database.db
      .select({ key: apiKeys, tenant: tenants })
      .from(apiKeys)
      .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
      .where(and(eq(apiKeys.prefix, sql.placeholder('prefix')), isNull(apiKeys.revokedAt)))
      .prepare(statementName(this.database, 'api_keys_active_by_prefix'));
  }

  async create(key: NewApiKey): Promise<ApiKeyRow> {
    const [row] = await this.database.db.insert(apiKeys).values(key).returning();
    return row;
  }

  async listByTenant(tenantId: string): Promise<ApiKeyRow[]> {
    return this.database.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.tenantId, tenantId))
      .orderBy(desc(apiKeys.createdAt));
  }

  /** The live (not revoked) key with this prefix, with its tenant; read on every request. */
  async findActiveByPrefix(prefix: string): Promise<{ key: ApiKeyRow; tenant: TenantRow } | undefined> {
    const [row] = await this.activeByPrefix.execute({ prefix });
    return row;
  }

  /** Revokes a key of this tenant; false when the tenant has no such key. Idempotent. */
  async revoke(tenantId: string, keyId: string): Promise<boolean> {
    if (!isUuid(tenantId) || !isUuid(keyId)) return false;
    const rows = await this.database.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id });
    if (rows.length > 0) return true;
    const [existing] = await this.database.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)));
    return existing !== undefined;
  }

  /**
   * Renames a key of this tenant or sets its own rate (null: the tenant's alone). Undefined when
   * the tenant has no such key; 'revoked' for a revoked one, which stays as it was revoked.
   */
  async update(tenantId: string, keyId: string, changes: { name?: string; requestsPerMinute?: number | null }): Promise<ApiKeyRow | 'revoked' | undefined> {
    if (!isUuid(tenantId) || !isUuid(keyId)) return undefined;
    const [row] = await this.database.db
      .update(apiKeys)
      // Only what is given: a field left out stays as it is.
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.requestsPerMinute !== undefined ? { requestsPerMinute: changes.requestsPerMinute } : {}),
      })
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning();
    if (row) return row;
    const [existing] = await this.database.db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)));
    return existing ? 'revoked' : undefined;
  }

  async touchLastUsed(tenantId: string, keyId: string, at: Date): Promise<void> {
    await this.database.db
      .update(apiKeys)
      .set({ lastUsedAt: at })
      .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)));
  }
}
