/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so that a seed gives the same graph on
 * every machine and Node version; Math.random cannot be seeded. Not for anything secret.
 */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** An integer in [min, max], both included. */
  between(min: number, max: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** FNV-1a of a label: lets one seed give independent, named streams ("tenant:3", "names"). */
function hashLabel(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRng(seed: number, label = ''): Rng {
  const init = splitmix32((seed >>> 0) ^ hashLabel(label));
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const next32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) next32(); // sfc32's recommended warm-up
  const next = () => next32() / 4294967296;
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    chance: (p) => next() < p,
    pick: (items) => items[int(items.length)],
  };
}

/**
 * Ranks 0..n-1 drawn with P(rank r) ∝ 1 / (r + 1)^s (Zipf): a few items get most draws, as the
 * hubs of a real knowledge graph do. The CDF is built once (n floats); each draw is a binary search.
 */
export class ZipfSampler {
  private readonly cdf: Float64Array;

  constructor(
    readonly n: number,
    readonly exponent: number,
  ) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Zipf needs at least one item, got ${n}`);
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let r = 0; r < n; r++) {
      total += 1 / Math.pow(r + 1, exponent);
      this.cdf[r] = total;
    }
    for (let r = 0; r < n; r++) this.cdf[r] /= total;
  }

  draw(rng: Rng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
