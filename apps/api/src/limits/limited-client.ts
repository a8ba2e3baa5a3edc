import type { Principal } from '@loci/auth';
import type { LimitedClient } from '@loci/quota';
import { tenantIdOf } from '../tenant-scope';

/**
 * The client a concurrency slot belongs to: the user of a JWT, or the API key, with the tenant
 * row an API key's principal carries (read with the key in this request, so admission does not
 * read it again).
 */
export function limitedClient(principal: Principal, requestId: string): LimitedClient {
  return {
    tenantId: tenantIdOf(principal),
    clientKind: principal.kind === 'jwt' ? 'user' : 'key',
    clientId: principal.kind === 'jwt' ? principal.userId : principal.keyId,
    requestId,
    tenant: principal.kind === 'api_key' ? principal.tenant : undefined,
  };
}
