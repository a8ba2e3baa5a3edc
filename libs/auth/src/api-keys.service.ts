import { Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@loci/common';
import { ApiKeyRow, ApiKeyScope, ApiKeysRepository, isUniqueViolation } from '@loci/db';
import { generateApiKey } from './api-key-secret';

export interface CreatedApiKey {
  row: ApiKeyRow;
  /** The full key: returned once, at creation, and never stored. */
  key: string;
}

/** What a new key may do and until when; left out, every scope and no expiry. */
export interface ApiKeyOptions {
  scopes?: ApiKeyScope[];
  expiresAt?: Date | null;
  /** The key's own requests a minute (within its tenant's rate); null or left out: the tenant's alone. */
  requestsPerMinute?: number | null;
}

@Injectable()
export class ApiKeysService {
  constructor(private readonly apiKeys: ApiKeysRepository) {}

  async create(tenantId: string, name: string, createdByUserId: string | null, options: ApiKeyOptions = {}): Promise<CreatedApiKey> {
    // A prefix collision (8 random base64url chars) is astronomically rare; retry rather than fail.
    for (let attempt = 0; ; attempt++) {
      const generated = generateApiKey();
      try {
        const row = await this.apiKeys.create({
          tenantId,
          name,
          prefix: generated.prefix,
          secretHash: generated.secretHash,
          createdByUserId,
          scopes: options.scopes,
          expiresAt: options.expiresAt ?? null,
          requestsPerMinute: options.requestsPerMinute ?? null,
        });
        return { row, key: generated.key };
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 2) throw error;
      }
    }
  }

  list(tenantId: string): Promise<ApiKeyRow[]> {
    return this.apiKeys.listByTenant(tenantId);
  }

  /** A new name or its own rate (null: the tenant's alone), from the key's next request on. A revoked key is not changed. */
  async update(tenantId: string, keyId: string, changes: { name?: string; requestsPerMinute?: number | null }): Promise<ApiKeyRow> {
    const updated = await this.apiKeys.update(tenantId, keyId, changes);
    if (updated === undefined) throw new NotFoundError('No such API key.');
    if (updated === 'revoked') throw new ConflictError('This API key is revoked: it cannot be changed.');
    return updated;
  }

  async revoke(tenantId: string, keyId: string): Promise<void> {
    if (!(await this.apiKeys.revoke(tenantId, keyId))) throw new NotFoundError('No such API key.');
  }
}
