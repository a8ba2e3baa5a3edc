import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-custom';
import { ApiKeysRepository } from '@loci/db';
import { apiKeyMatches, apiKeyPrefix, isWellFormedApiKey } from './api-key-secret';
import { credentialFrom } from './credential';
import { Principal } from './principal';

// last_used_at is informative; writing it on every request would put a write on the hot path.
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Verifies `loci_...` keys against the store on every request, so revocation is immediate; a
 * key past its expiry is refused the same way as a revoked one.
 */
@Injectable()
export class ApiKeyStrategy extends PassportStrategy(Strategy, 'api-key') {
  constructor(private readonly apiKeys: ApiKeysRepository) {
    super();
  }

  async validate(req: Request): Promise<Principal | false> {
    const key = credentialFrom(req);
    if (!key || !isWellFormedApiKey(key)) return false;
    const found = await this.apiKeys.findActiveByPrefix(apiKeyPrefix(key));
    if (!found || !apiKeyMatches(key, found.key.secretHash)) return false;
    const now = new Date();
    if (found.key.expiresAt && found.key.expiresAt.getTime() <= now.getTime()) return false;
    if (!found.key.lastUsedAt || now.getTime() - found.key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      void this.apiKeys.touchLastUsed(found.key.tenantId, found.key.id, now).catch(() => undefined);
    }
    const { id: keyId, tenantId, scopes, requestsPerMinute } = found.key;
    return { kind: 'api_key', keyId, tenantId, role: null, scopes, tenant: found.tenant, requestsPerMinute };
  }
}
