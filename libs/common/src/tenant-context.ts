import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose work is running: the tenant of the request being answered or of the job being run, for
 * the shared resources that serve tenants in turn (the CPU pool's threads, issue 34.2) without
 * every call on the way passing it down. A request's context is opened before routing, empty,
 * and named once the guard knows the caller (`nameTenant`); a job's is opened with its tenant.
 */
interface TenantWork {
  tenantId?: string;
  /** What this work looked up once for all its steps (workMemo). */
  memo?: Map<string, unknown>;
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

/**
 * The value `make` gave the first time this work (a request, a job) asked for `key`: later asks
 * of the same work share it, so a question's statements look a thing up once, not one time each.
 * Outside any work, made at every ask. Promises are kept as they are (concurrent asks share one).
 */
export function workMemo<T>(key: string, make: () => T): T {
  const work = storage.getStore();
  if (!work) return make();
  work.memo ??= new Map();
  if (!work.memo.has(key)) work.memo.set(key, make());
  return work.memo.get(key) as T;
}
