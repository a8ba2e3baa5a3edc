import { cosineSimilarity } from './entity-plan';
import { similarEarlierNames } from './similar-names';

describe('similarEarlierNames', () => {
  it('lists, for each vector, the earlier ones at or above the threshold with the store-rounded cosine', () => {
    const vectors = [
      [1, 0, 0],
      [0.9, 0.1, 0],
      [0, 1, 0],
      [0, 0, 0], // a zero vector is close to nothing (NaN, as in pgvector)
      [1, 0.05, 0],
    ];
    const similar = similarEarlierNames(vectors, 0.8);
    expect(similar.map((list) => list.map((s) => s.index))).toEqual([[], [0], [], [], [0, 1]]);
    for (const [i, list] of similar.entries()) {
      for (const { index, similarity } of list) expect(similarity).toBe(cosineSimilarity(vectors[i], vectors[index]));
    }
  });

  it('compares vectors of different widths over the shorter one, as cosineSimilarity does', () => {
    const [, second] = similarEarlierNames([[1, 0], [1, 0, 5]], 0.5);
    expect(second).toEqual([{ index: 0, similarity: cosineSimilarity([1, 0], [1, 0, 5]) }]);
  });
});
