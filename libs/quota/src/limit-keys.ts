/**
 * Limiter key names and UTC windows.
 *
 * Every key of one tenant carries the hash tag `{t:<tenantId>}`, so on Redis Cluster they all
 * hash to one slot and a single Lua script may touch a tenant's day and month counters together.
 *
 * Cluster trade-off (not built): a reserve that touches a tenant key AND the platform key
 * (`{platform}`) is one atomic script on a single Redis, but on a Cluster those are two slots and
 * one script cannot span them (CROSSSLOT). Options when the platform outgrows one Redis:
 *  - a platform day counter per tenant slot (`loci:{t:<id>}:platform:day:<date>`) with the
 *    platform cap split into per-tenant shares that are rebalanced periodically: atomic, but the
 *    platform cap becomes approximate by the size of the unused shares;
 *  - a two-phase reserve: reserve in the tenant slot, then in the platform slot, and on refusal
 *    compensate by releasing the tenant reservation (a crash between the phases is healed by the
 *    lease expiry). Exact for the platform cap, at one more round trip and a short window in
 *    which the tenant counter holds a reservation that is about to be undone.
 * Reservation records are keyed by reservation id (LimitStoreOptions.namespace); a cluster
 * variant would put the tenant hash tag into the id so the record shares the tenant's slot.
 */

const DAY_MS = 86_400_000;

function tag(tenantId: string): string {
  // A brace inside the id would change which part of the key Redis hashes.
  if (!tenantId || /[{}]/.test(tenantId)) throw new RangeError(`invalid tenant id for a limiter key: ${tenantId}`);
  return `loci:{t:${tenantId}}`;
}

export const limitKeys = {
  tenantSpendDay: (tenantId: string, day: string) => `${tag(tenantId)}:spend:day:${day}`,
  tenantSpendMonth: (tenantId: string, month: string) => `${tag(tenantId)}:spend:month:${month}`,
  /** Concurrency slots of one client: a user (JWT) or an API key (gb calls). */
  clientSlots: (tenantId: string, clientKind: 'user' | 'key', clientId: string) =>
    `${tag(tenantId)}:slots:${clientKind}:${clientId}`,
  userSlots: (tenantId: string, userId: string) => `${tag(tenantId)}:slots:user:${userId}`,
  tenantQuotaDay: (tenantId: string, day: string) => `${tag(tenantId)}:quota:day:${day}`,
  /** The request-rate bucket of a tenant, and of one API key within it (the same slot). */
  tenantRate: (tenantId: string) => `${tag(tenantId)}:rate:tenant`,
  keyRate: (tenantId: string, keyId: string) => `${tag(tenantId)}:rate:key:${keyId}`,
  /**
   * A graph's note of its last write for read-your-writes across API instances (ReadRouter), the
   * count of notes its tenant made this note life, and the tenant's overflow note past the bound.
   */
  writeNote: (tenantId: string, graphId: number) => `${tag(tenantId)}:write-note:${graphId}`,
  writeNotesMade: (tenantId: string) => `${tag(tenantId)}:write-notes-made`,
  writeNoteOverflow: (tenantId: string) => `${tag(tenantId)}:write-note:overflow`,
  platformSpendDay: (day: string) => `loci:{platform}:spend:day:${day}`,
  /** What every key of one tenant starts with (its deletion forgets them all). */
  tenantPrefix: (tenantId: string) => `${tag(tenantId)}:`,
  /** SCAN MATCH pattern of every key of one tenant; glob characters of the id are escaped. */
  tenantPattern: (tenantId: string) => `${tag(tenantId).replace(/[*?[\]\\]/g, '\\$&')}:*`,
};

/** `YYYY-MM-DD` of the UTC day containing ms (server time): 23:59:59.999 still belongs to it. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `YYYY-MM` of the UTC calendar month containing ms. */
export function utcMonth(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export function nextUtcMidnightMs(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
}

export function nextMonthStartMs(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1); // month 12 rolls into January
}

/** For Retry-After: rounded up, so a client never retries before the window has turned. */
export function secondsToNextUtcMidnight(ms: number): number {
  return Math.ceil((nextUtcMidnightMs(ms) - ms) / 1000);
}

export function secondsToNextMonthStart(ms: number): number {
  return Math.ceil((nextMonthStartMs(ms) - ms) / 1000);
}
