/**
 * Money is integer micro-dollars inside Loci (1 USD = 1_000_000). Operators and clients speak
 * USD on the wire; these convert at the edge, rounding to the nearest micro-dollar.
 */
export const MICROS_PER_USD = 1_000_000;

export function usdToMicros(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}
