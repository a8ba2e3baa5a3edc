// The deep path, not `@loci/db`: every CPU worker thread loads this module, and the package's
// index would load NestJS, drizzle and both database drivers into each of them.
import { halfRound } from '../../../db/src/half-precision';

/** An earlier name of the same text whose name vector is close enough to resolve to. */
export interface SimilarName {
  /** Its position in the text's names. */
  index: number;
  similarity: number;
}

/**
 * For each name vector, the earlier ones at cosine ≥ `threshold`, computed as the store computes
 * cosine (cosineSimilarity in entity-plan: components rounded to half precision, NaN for a zero
 * vector, never close). It compares every pair, so it is quadratic in the names of one text:
 * 200 names take ~0.1 s, and a chunk of 8000 tokens (or an LLM's long reply) can name over a
 * thousand, seconds of CPU. GraphWriter runs it on a worker thread beyond a few dozen names.
 */
export function similarEarlierNames(vectors: ReadonlyArray<ArrayLike<number>>, threshold: number): SimilarName[][] {
  // Rounded once, not once per pair; the sums are taken in the same order as cosineSimilarity's.
  const rounded = vectors.map((vector) => Float64Array.from(vector, halfRound));
  const norms = rounded.map((v) => dot(v, v, v.length));
  return rounded.map((a, i) => {
    const similar: SimilarName[] = [];
    for (let j = 0; j < i; j++) {
      const b = rounded[j];
      const length = Math.min(a.length, b.length);
      const similarity = dot(a, b, length) / Math.sqrt(normOver(a, norms[i], length) * normOver(b, norms[j], length));
      if (similarity >= threshold) similar.push({ index: j, similarity });
    }
    return similar;
  });
}

function dot(a: Float64Array, b: Float64Array, length: number): number {
  let sum = 0;
  for (let k = 0; k < length; k++) sum += a[k] * b[k];
  return sum;
}

/** The squared norm over the first `length` components (the whole vector's unless lengths differ). */
function normOver(v: Float64Array, whole: number, length: number): number {
  return length === v.length ? whole : dot(v, v, length);
}

/** Vectors in one buffer, which crosses to a worker thread by transfer rather than by copy. */
export interface PackedVectors {
  values: Float64Array;
  lengths: Int32Array;
}

/** Vectors packed per slice: a slice of 1024-d vectors is ~0.5 ms of copying. */
const VECTORS_PACKED_PER_SLICE = 64;

/**
 * `vectors` in one Float64Array (exact: a number is a float64), copied a slice at a time with
 * the event loop let through between slices. Posting the arrays themselves to a thread
 * clones them element by element in one go: ~1 300 name vectors of 1 024 held the event loop
 * for ~0.1–0.25 s; packed, they are transferred without a copy.
 */
export async function packVectors(vectors: ReadonlyArray<ArrayLike<number>>): Promise<PackedVectors> {
  const lengths = Int32Array.from(vectors, (vector) => vector.length);
  const values = new Float64Array(lengths.reduce((sum, length) => sum + length, 0));
  let offset = 0;
  for (let i = 0; i < vectors.length; i++) {
    if (i > 0 && i % VECTORS_PACKED_PER_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const vector = vectors[i];
    for (let k = 0; k < vector.length; k++) values[offset + k] = vector[k];
    offset += vector.length;
  }
  return { values, lengths };
}

/** The vectors of a PackedVectors, as views of its buffer. */
export function unpackVectors({ values, lengths }: PackedVectors): Float64Array[] {
  const vectors = new Array<Float64Array>(lengths.length);
  let offset = 0;
  for (let i = 0; i < lengths.length; i++) {
    vectors[i] = values.subarray(offset, offset + lengths[i]);
    offset += lengths[i];
  }
  return vectors;
}
