import { ForbiddenError } from '@loci/common';
import type { Principal } from '@loci/auth';

/**
 * The tenant a request acts in: always the principal's own, never one named in the request,
 * so no route can be pointed at another tenant's rows. Operators have no tenant.
 */
export function tenantIdOf(principal: Principal): string {
  if (!principal.tenantId) throw new ForbiddenError('This route acts inside a tenant; operators have none.');
  return principal.tenantId;
}
