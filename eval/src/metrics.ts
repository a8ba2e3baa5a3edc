/**
 * The eval's definitions, in one place (docs/QUALITY.md states them in words).
 *
 * A ranking is the list of passage titles a retriever returned, best first, one entry per chunk
 * (a passage cut into two chunks appears twice; it still counts once).
 */

/** Fraction of the gold titles among the first k entries of the ranking (k = Infinity: all of it). */
export function recallAt(ranking: readonly string[], gold: readonly string[], k: number): number {
  if (gold.length === 0) return 0;
  const seen = new Set(ranking.slice(0, k));
  return gold.filter((title) => seen.has(title)).length / gold.length;
}

/** 1 when every gold title is among the first k entries, else 0 (the stricter reading of recall@k). */
export function allGoldAt(ranking: readonly string[], gold: readonly string[], k: number): number {
  return recallAt(ranking, gold, k) === 1 ? 1 : 0;
}

/**
 * SQuAD's answer normalisation: lower case, punctuation and the articles a/an/the dropped,
 * whitespace collapsed. An answer contains the gold answer when the normalised gold string is
 * a whole-word substring of the normalised answer.
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export function containsAnswer(answer: string, gold: string): boolean {
  const wanted = normalizeAnswer(gold);
  if (!wanted) return false;
  return ` ${normalizeAnswer(answer)} `.includes(` ${wanted} `);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Rounded for reports: 3 decimals is finer than 100 questions can tell apart. */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
