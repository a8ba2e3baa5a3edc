/**
 * The seam through which spend control bounds every model call: before the call its
 * worst-case cost is reserved (a refusal throws, and the call is not made); after it, the
 * reservation is settled to what the provider billed. Provided by the quota module. A
 * reservation is kept alive (renewed) until it is settled, however long the call takes, so it
 * must be settled on every path, failures included.
 */
export interface SpendGuard {
  reserve(tenantId: string, reservationId: string, estimateMicros: number): Promise<GuardedReservation>;
}

export interface GuardedReservation {
  /**
   * When the reservation was made, by the limit store's clock, inside the day whose counters it
   * was charged to: the call's ledger row is dated by it, so the ledger (the truth) and the
   * counters (its cache) put a call made at 23:59:59 in the same day.
   */
  at: Date;
  settle(actualMicros: number): Promise<void>;
}

export const SPEND_GUARD = Symbol('SPEND_GUARD');
