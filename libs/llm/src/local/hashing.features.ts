/**
 * The features of `local-hash-v1`, kept apart from the shared word lists on purpose: every
 * vector stored under that model name depends on exactly this code. Changing anything here
 * (tokens, stopwords, stemming, weights, hash) needs a new model name, or old and new vectors
 * get compared as if they were alike. `hashing.embedder.spec.ts` pins a few values to catch it.
 */

/** Words that carry little meaning: kept as words at a low weight, never as n-grams. */
const STOPWORDS = new Set(
  (
    'a an the and or but if then than that this these those there here of to in on at by for from with ' +
    'into onto about as is are was were be been being am do does did have has had will would shall ' +
    'should can could may might must i me my we us our you your he him his she her it its they them ' +
    'their what which who whom whose where when why how not no so too very just also all any some'
  ).split(' '),
);

const STOPWORD_WEIGHT = 0.3;
/** Shares of the final cosine: word unigrams, content-word bigrams, character n-grams. */
const GROUP_WEIGHTS = { words: 0.5, bigrams: 0.15, chars: 0.35 } as const;
const MIN_GRAM = 3;
const MAX_GRAM = 5;

/**
 * Lowercased word tokens. Latin diacritics are folded ("Müller" = "Muller"), the possessive
 * "'s" is dropped and other apostrophes are removed ("don't" = "dont").
 */
export function hashTokens(text: string): string[] {
  const folded = text
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/(\p{Script=Latin})\p{M}+/gu, '$1')
    .normalize('NFC')
    .replace(/['’]s\b/gu, '')
    .replace(/['’]/gu, '');
  return folded.match(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu) ?? [];
}

/** A light suffix stripper, so that "works", "worked" and "working" share a word feature. */
export function lightStem(token: string): string {
  if (token.length <= 3 || /\p{N}/u.test(token)) return token;
  let t = token;
  if (t.endsWith('ies') && t.length > 4) t = `${t.slice(0, -3)}y`;
  else if (t.endsWith('sses')) t = t.slice(0, -2);
  else if (/(?:ss|us|is)$/.test(t)) return t;
  else if (t.endsWith('ing') && t.length >= 6) t = undouble(t.slice(0, -3));
  else if (t.endsWith('ed') && t.length >= 5) t = undouble(t.slice(0, -2));
  else if (/(?:ch|sh|x|z)es$/.test(t)) t = t.slice(0, -2);
  else if (t.endsWith('s')) t = t.slice(0, -1);
  if (t.endsWith('e') && t.length > 3) t = t.slice(0, -1);
  return t;
}

function undouble(stem: string): string {
  return /([b-df-hj-kmnp-rtv-y])\1$/.test(stem) ? stem.slice(0, -1) : stem;
}

export type FeatureCounts = Map<string, number>;

export interface TextFeatures {
  words: FeatureCounts;
  bigrams: FeatureCounts;
  chars: FeatureCounts;
}

function add(counts: FeatureCounts, key: string, n: number): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** Term counts of each feature group, in order of first occurrence. */
export function extractFeatures(text: string): TextFeatures {
  const words: FeatureCounts = new Map();
  const bigrams: FeatureCounts = new Map();
  const chars: FeatureCounts = new Map();
  let previous: string | null = null;
  for (const token of hashTokens(text)) {
    if (STOPWORDS.has(token)) {
      add(words, `w:${token}`, 1);
      continue;
    }
    const stem = lightStem(token);
    add(words, `w:${stem}`, 1);
    if (previous !== null) add(bigrams, `b:${previous} ${stem}`, 1);
    previous = stem;
    const marked = `<${token}>`;
    for (let n = MIN_GRAM; n <= MAX_GRAM; n++) {
      for (let i = 0; i + n <= marked.length; i++) add(chars, `c:${marked.slice(i, i + n)}`, 1);
    }
  }
  return { words, bigrams, chars };
}

/** FNV-1a over UTF-16 code units, then murmur3's finaliser for a good spread of every bit. */
export function hash32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i);
    h = Math.imul(h ^ (unit & 0xff), 0x01000193);
    h = Math.imul(h ^ (unit >>> 8), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Sublinear term frequency (`w · (1 + ln tf)`, where `w` is the feature's weight) hashed into
 * `dimensions` buckets with a sign bit, so that collisions cancel out on average instead of
 * piling up. Returns the group's vector, L2-normalised (or all zeros).
 */
function hashGroup(counts: FeatureCounts, weights: Map<string, number>, vector: Float64Array): Float64Array {
  vector.fill(0);
  const dimensions = vector.length;
  // forEach rather than for…of over entries: no [key, count] array per feature.
  counts.forEach((count, key) => {
    const weight = weights.get(key) ?? 1;
    const h = hash32(key);
    const sign = h >>> 31 === 1 ? -1 : 1;
    vector[h % dimensions] += sign * weight * (1 + Math.log(count));
  });
  return normalize(vector);
}

function normalize(vector: Float64Array): Float64Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum === 0) return vector;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}

/** One group's vector at a time, reused (embedding is synchronous): ~8 KB less garbage a group. */
const groupScratch = new Map<number, Float64Array>();

/**
 * The embedding of one text: the three groups, each unit length, mixed by `GROUP_WEIGHTS`
 * (so the cosine of two texts is about the weighted mean of their per-group cosines) and
 * L2-normalised. A text without a word gives the zero vector.
 */
export function hashEmbed(text: string, dimensions: number): number[] {
  const features = extractFeatures(text);
  const wordWeights = new Map<string, number>();
  for (const key of features.words.keys()) {
    if (STOPWORDS.has(key.slice(2))) wordWeights.set(key, STOPWORD_WEIGHT);
  }
  const mixed = new Float64Array(dimensions);
  const groups: Array<[FeatureCounts, Map<string, number>, number]> = [
    [features.words, wordWeights, GROUP_WEIGHTS.words],
    [features.bigrams, new Map(), GROUP_WEIGHTS.bigrams],
    [features.chars, new Map(), GROUP_WEIGHTS.chars],
  ];
  let scratch = groupScratch.get(dimensions);
  if (!scratch) groupScratch.set(dimensions, (scratch = new Float64Array(dimensions)));
  for (const [counts, weights, share] of groups) {
    if (counts.size === 0) continue;
    const group = hashGroup(counts, weights, scratch);
    const scale = Math.sqrt(share);
    for (let i = 0; i < dimensions; i++) mixed[i] += scale * group[i];
  }
  normalize(mixed);
  // An index loop, not Array.from(mixed): that goes through the iterator, an object per element.
  const vector = new Array<number>(dimensions);
  for (let i = 0; i < dimensions; i++) vector[i] = mixed[i];
  return vector;
}

/** What the usage counts as input tokens: words, as the tokenizer sees them. */
export function countWords(text: string): number {
  return hashTokens(text).length;
}
