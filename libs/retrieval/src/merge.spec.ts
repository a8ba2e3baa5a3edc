import { keepBestScore, roundRobin } from './merge';

describe('roundRobin', () => {
  const id = (item: { id: number }) => item.id;

  it('interleaves lists and keeps each item once, at its first place', () => {
    const merged = roundRobin([[{ id: 1 }, { id: 2 }, { id: 3 }], [{ id: 2 }, { id: 4 }], [{ id: 5 }]], id);
    expect(merged.map(id)).toEqual([1, 2, 5, 4, 3]);
  });

  it('folds duplicates with combine', () => {
    const merged = roundRobin([[{ id: 1, score: 0.2 }], [{ id: 1, score: 0.9 }]], id, keepBestScore);
    expect(merged).toEqual([{ id: 1, score: 0.9 }]);
  });

  it('handles empty lists', () => {
    expect(roundRobin<{ id: number }>([[], []], id)).toEqual([]);
  });
});
