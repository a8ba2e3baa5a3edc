import type { Principal } from '@loci/auth';
import type { LimitedClient } from '@loci/quota';
import { tenantIdOf } from '../tenant-scope';

/**
 * The client a concurrency slot belongs to: the user of a JWT or an MCP OAuth token, or the API key, with the tenant
 * row an API key's principal carries (read with the key in this request, so admission does not
 * read it again).
 */
export function limitedClient(principal: Principal, requestId: string): LimitedClient {
  return {
    tenantId: tenantIdOf(principal),
    // An MCP client authorized by a user acts for that user: it shares the user's slots, so
    // authorizing many clients does not multiply what one person may have in flight.
    clientKind: principal.kind === 'api_key' ? 'key' : 'user',
    clientId: principal.kind === 'api_key' ? principal.keyId : principal.userId,
    requestId,
    tenant: principal.kind === 'api_key' ? principal.tenant : undefined,
    keyRequestsPerMinute: principal.kind === 'api_key' ? principal.requestsPerMinute : null,
  };
}
