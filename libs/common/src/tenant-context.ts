import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose work is running: the tenant of the request being answered or of the job being run, for
 * the shared resources that serve tenants in turn (the CPU pool's threads, issue 34.2) without
 * every call on the way passing it down. A request's context is opened before routing, empty,
 * and named once the guard knows the caller (`nameTenant`); a job's is opened with its tenant.
 */
interface TenantWork {
  tenantId?: string;
}

const storage = new AsyncLocalStorage<TenantWork>();

/** Runs `work` in a context of its own, for `tenantId` (or to be named later). */
export function runAsTenant<T>(tenantId: string | undefined, work: () => T): T {
  return storage.run({ tenantId }, work);
}

/** Names the tenant of the context already open (a request's, once authenticated). */
export function nameTenant(tenantId: string | null | undefined): void {
  const current = storage.getStore();
  if (current && tenantId) current.tenantId = tenantId;
}

/** The tenant whose work this is, if known. */
export function currentTenant(): string | undefined {
  return storage.getStore()?.tenantId;
}
