/**
 * Weighted reciprocal rank fusion: an item's fused score is the sum, over the ranked lists it
 * appears in, of weight / (RRF_K + rank), ranks from 1. Ranks, not raw scores, are fused because
 * the channels' scores are not comparable (BM25 is unbounded, cosine is not); the weights let a
 * strong channel lead and keep a weak one from dragging it down (with equal votes, a weak
 * embedder's list pulled BM25's recall@2 on HotpotQA-100 from 0.605 to 0.475).
 *
 * RRF_K is small, not the customary 60: with k = 60, ranks 1 to 5 of a list score within 7% of
 * each other, so any second list's vote reorders the first list's top, however small its weight
 * (a weight-0.2 list of the facts' chunks pulled the global path's recall@2 from 0.63 to 0.42 on
 * the development eval). With k = 2 the lead list keeps its top and the others break its ties
 * and bring in what it missed. Measured on the eval (docs/QUALITY.md) for k = 2, 5, 10, 20, 60.
 */
export const RRF_K = 2;

export interface RankedList<T> {
  items: T[];
  weight: number;
}

export interface Fused<T> {
  item: T;
  score: number;
}

/**
 * Fuses ranked lists into one, best first. The first occurrence of a key is the item kept;
 * `combine` folds a later list's duplicate into it. Ties keep the order of first appearance
 * (lists in the order given), so the result is deterministic.
 */
export function fuseByRank<T>(
  lists: Array<RankedList<T>>,
  key: (item: T) => number,
  combine: (kept: T, duplicate: T) => T = (kept) => kept,
): Array<Fused<T>> {
  const fused = new Map<number, { item: T; score: number; first: number }>();
  let seen = 0;
  for (const { items, weight } of lists) {
    if (!(weight > 0)) continue;
    items.forEach((item, index) => {
      const id = key(item);
      const contribution = weight / (RRF_K + index + 1);
      const entry = fused.get(id);
      if (entry) {
        entry.item = combine(entry.item, item);
        entry.score += contribution;
      } else {
        fused.set(id, { item, score: contribution, first: seen++ });
      }
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map(({ item, score }) => ({ item, score }));
}
