/**
 * How a vector is sent to PostgreSQL: as text for `halfvec` columns, and as a halfvec parameter
 * (binary on node-postgres, this text on PGlite) for query vectors (halfvecParam, below).
 *
 * pgvector reads a halfvec's text as float4 (strtof) and rounds each element to half
 * precision (ties to even), so the 17 significant digits JSON.stringify writes (~21 KB for a
 * 1024-d vector, and the pgvector package's toSql is the same JSON.stringify) carry digits the
 * store throws away. Here each element is rounded the way the store rounds it (float4, then
 * half) and written with 5 significant digits, which are enough for every half value to read
 * back as itself: the store ends up with the same bits from under half the text (~10 KB), and
 * both sides parse less. The decimal of each of the 65,536 half values is made once and kept.
 */

const float32 = new Float32Array(1);
const float32Bits = new Uint32Array(float32.buffer);
const halfText: Array<string | undefined> = new Array(1 << 16);

/** The IEEE half-precision bits nearest to `x` taken as float4, ties to even (as pgvector's HalfFromFloat4). */
export function halfBits(x: number): number {
  float32[0] = x;
  const bits = float32Bits[0];
  const sign = (bits >>> 16) & 0x8000;
  const biased = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (biased === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0); // infinity, NaN
  const exponent = biased - 127 + 15;
  if (exponent >= 0x1f) return sign | 0x7c00; // past 65504: infinity
  if (exponent <= 0) {
    // Subnormal half (or zero): the implicit bit joins the mantissa, shifted further right.
    if (exponent < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - exponent;
    let half = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const tie = 1 << (shift - 1);
    if (rest > tie || (rest === tie && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa steps the exponent (and to infinity past the largest half): right.
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++;
  return sign | half;
}

/** The value of half-precision bits. */
export function halfValue(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0x1f) return mantissa ? Number.NaN : sign * Infinity;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

function textOfHalf(bits: number): string {
  let text = halfText[bits];
  if (text === undefined) {
    const value = halfValue(bits);
    // Number() drops the trailing zeros toPrecision keeps; String(-0) would lose the sign the store keeps.
    if (bits === 0x8000) text = '-0';
    else text = Number.isFinite(value) ? String(Number(value.toPrecision(5))) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
    halfText[bits] = text;
  }
  return text;
}

const texts = new WeakMap<readonly number[], string>();

/**
 * `[e1,e2,…]` as pgvector's halfvec input reads it, each element already at the precision the
 * store keeps. Kept per array (a question's vector is sent by several statements): a vector
 * must not be changed in place after it was written.
 */
export function halfvecText(vector: readonly number[]): string {
  let text = texts.get(vector);
  if (text === undefined) {
    const parts = new Array<string>(vector.length);
    // A zero (either sign) is written 0, as JSON writes it; a tiny negative the store rounds to -0 is written -0.
    for (let i = 0; i < vector.length; i++) parts[i] = vector[i] === 0 ? '0' : textOfHalf(halfBits(vector[i]));
    text = `[${parts.join(',')}]`;
    texts.set(vector, text);
  }
  return text;
}

/**
 * A query vector as one `halfvec` parameter: the bytes of pgvector's binary input (halfvec_recv:
 * int16 dimensions, int16 zero, then each element's half-precision bits, all big-endian) with
 * the vector's text (halfvecText) as its string.
 *
 * node-postgres sends a typed-array parameter in binary, so PostgreSQL copies 2 KB instead of
 * parsing ~10 KB of decimals with strtof (1 024 of them per statement), and the driver writes
 * 2 KB into the Bind message instead of encoding the text. PGlite sends every parameter of a
 * type it has no serializer for (halfvec is an extension's) as `String(value)`: the text, so
 * both stores receive the same bits as from halfvecText. The statement must cast the
 * parameter (`$n::loci_vector`, vector-width.ts): an untyped binary parameter would be read as text.
 */
export class HalfvecParam extends Uint8Array {
  constructor(private readonly vector: readonly number[]) {
    super(4 + 2 * vector.length);
    const view = new DataView(this.buffer, this.byteOffset, this.byteLength);
    view.setInt16(0, vector.length);
    view.setInt16(2, 0);
    // A zero of either sign is +0, as halfvecText writes it.
    for (let i = 0; i < vector.length; i++) view.setUint16(4 + 2 * i, vector[i] === 0 ? 0 : halfBits(vector[i]));
  }

  override toString(): string {
    return halfvecText(this.vector);
  }

  toJSON(): string {
    return this.toString();
  }
}

const params = new WeakMap<readonly number[], HalfvecParam>();

/** The halfvec parameter of a query vector, made once per array (several statements send a question's vector). */
export function halfvecParam(vector: readonly number[]): HalfvecParam {
  let param = params.get(vector);
  if (param === undefined) {
    param = new HalfvecParam(vector);
    params.set(vector, param);
  }
  return param;
}
