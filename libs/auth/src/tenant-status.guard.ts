import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { TenantSuspendedError, UnauthenticatedError } from '@loci/common';
import { IS_PUBLIC } from './decorators';
import { Principal } from './principal';
import { TenantStatus, TenantState } from './tenant-status';

/**
 * Refuses every request of a suspended tenant (403 `tenant_suspended`, in the called surface's
 * shape) and of a deleted one (401). Registered right after PrincipalGuard, so the principal is
 * known; operators have no tenant and pass. Both strategies read the tenant's state in the
 * statement that checks the credential (an API key's principal carries its tenant's row, a
 * JWT's its tenant's suspended_at, read with the user), so a suspension holds on every instance
 * from the next request. A principal that carries neither is read through TenantStatus (stale
 * by at most TENANT_STATUS_TTL_MS on other instances).
 */
@Injectable()
export class TenantStatusGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly status: TenantStatus,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const principal: Principal | undefined = context.switchToHttp().getRequest().principal;
    if (!principal?.tenantId) return true;
    const state =
      principal.kind === 'api_key' && principal.tenant
        ? TenantStatus.stateOf(principal.tenant)
        : principal.kind !== 'api_key' && principal.tenantSuspendedAt !== undefined
          ? TenantStatus.stateOf({ suspendedAt: principal.tenantSuspendedAt })
          : await this.status.stateOf(principal.tenantId);
    assertServable(state);
    return true;
  }
}

export function assertServable(state: TenantState): void {
  if (state === 'suspended') throw new TenantSuspendedError();
  if (state === 'gone') throw new UnauthenticatedError('This tenant no longer exists.');
}
