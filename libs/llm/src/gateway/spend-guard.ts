/**
 * The seam through which spend control bounds every model call: before the call its
 * worst-case cost is reserved (a refusal throws, and the call is not made); after it, the
 * reservation is settled to what the provider billed. Provided by the quota module. A
 * reservation is kept alive (renewed) until it is settled, however long the call takes, so it
 * must be settled on every path, failures included.
 */
export interface SpendGuard {
  reserve(tenantId: string, reservationId: string, estimateMicros: number): Promise<{ settle(actualMicros: number): Promise<void> }>;
}

export const SPEND_GUARD = Symbol('SPEND_GUARD');
