/**
 * A number rounded to the nearest IEEE half-precision value (ties to even), as pgvector stores a
 * `halfvec` component: the graph's vectors are halfvec (docs/decisions/0004-vectors-as-halfvec.md), so comparisons made
 * in memory that stand in for the store's round the same way. Math.f16round where the runtime
 * has it (Node 24); the same arithmetic otherwise.
 */
export const halfRound: (x: number) => number =
  (Math as unknown as { f16round?: (x: number) => number }).f16round ?? roundToHalf;

const MAX_HALF = 65504;
const MIN_NORMAL_EXPONENT = -14;
const MANTISSA_BITS = 10;

export function roundToHalf(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const magnitude = Math.abs(x);
  // Subnormals share the quantum of the smallest normal exponent.
  let exponent = Math.max(Math.floor(Math.log2(magnitude)), MIN_NORMAL_EXPONENT);
  if (2 ** exponent > magnitude) exponent -= 1; // log2 rounded up at a power of two
  const quantum = 2 ** (Math.max(exponent, MIN_NORMAL_EXPONENT) - MANTISSA_BITS);
  const steps = magnitude / quantum;
  let rounded = Math.round(steps);
  if (rounded - steps === 0.5 && rounded % 2 === 1) rounded -= 1; // Math.round takes ties up; halves take them to even
  const value = rounded * quantum;
  // Past the largest half (65504, ties at 65520 included) the value overflows to infinity.
  return Math.sign(x) * (value > MAX_HALF ? Infinity : value);
}
