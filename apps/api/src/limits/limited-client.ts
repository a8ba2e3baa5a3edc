import type { Principal } from '@loci/auth';
import type { LimitedClient } from '@loci/quota';
import { tenantIdOf } from '../tenant-scope';

/** The client a concurrency slot belongs to: the user of a JWT, or the API key. */
export function limitedClient(principal: Principal, requestId: string): LimitedClient {
  return {
    tenantId: tenantIdOf(principal),
    clientKind: principal.kind === 'jwt' ? 'user' : 'key',
    clientId: principal.kind === 'jwt' ? principal.userId : principal.keyId,
    requestId,
  };
}
