/**
 * Interleaves ranked lists (first of each, then second of each, …), keeping the first
 * occurrence of each key at its place; `combine` folds a later duplicate into it.
 */
export function roundRobin<T>(lists: T[][], key: (item: T) => number, combine: (kept: T, duplicate: T) => T = (kept) => kept): T[] {
  const merged: T[] = [];
  const at = new Map<number, number>();
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) {
    for (const list of lists) {
      if (i >= list.length) continue;
      const item = list[i];
      const seen = at.get(key(item));
      if (seen === undefined) {
        at.set(key(item), merged.length);
        merged.push(item);
      } else {
        merged[seen] = combine(merged[seen], item);
      }
    }
  }
  return merged;
}

/** Keeps the higher score of two finds of the same item. */
export const keepBestScore = <T extends { score: number }>(kept: T, duplicate: T): T =>
  duplicate.score > kept.score ? { ...kept, score: duplicate.score } : kept;
