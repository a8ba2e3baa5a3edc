import { fuseByRank, RRF_K } from './fusion';

const key = (x: { id: number }) => x.id;
const ids = (xs: Array<{ item: { id: number } }>) => xs.map((x) => x.item.id);

describe('fuseByRank', () => {
  it('sums weight / (k + rank) over the lists an item is in', () => {
    const fused = fuseByRank(
      [
        { items: [{ id: 1 }, { id: 2 }], weight: 1 },
        { items: [{ id: 2 }, { id: 3 }], weight: 0.5 },
      ],
      key,
    );
    expect(ids(fused)).toEqual([2, 1, 3]);
    expect(fused[0].score).toBeCloseTo(1 / (RRF_K + 2) + 0.5 / (RRF_K + 1));
  });

  it('lets a heavier list lead: a weak list cannot outvote a strong one on its own', () => {
    const strong = { items: [{ id: 1 }, { id: 2 }, { id: 3 }], weight: 1 };
    const weak = { items: [{ id: 9 }, { id: 8 }, { id: 7 }], weight: 0.2 };
    expect(ids(fuseByRank([weak, strong], key)).slice(0, 3)).toEqual([1, 2, 3]);
    // With equal votes the two lists would interleave.
    expect(ids(fuseByRank([weak, { ...strong, weight: 0.2 }], key)).slice(0, 2)).toEqual([9, 1]);
  });

  it('skips lists of weight 0 and folds duplicates with combine', () => {
    const fused = fuseByRank(
      [
        { items: [{ id: 1, n: 1 }], weight: 1 },
        { items: [{ id: 1, n: 5 }], weight: 1 },
        { items: [{ id: 2, n: 0 }], weight: 0 },
      ],
      key,
      (kept, dup) => ({ ...kept, n: Math.max(kept.n, dup.n) }),
    );
    expect(fused.map((f) => f.item)).toEqual([{ id: 1, n: 5 }]);
  });
});
