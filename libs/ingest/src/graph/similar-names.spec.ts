import { cosineSimilarity } from './entity-plan';
import { packVectors, similarEarlierNames, unpackVectors } from './similar-names';

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

describe('packVectors', () => {
  it('packs vectors of any widths exactly, and unpacks them as views of one buffer', async () => {
    const vectors = Array.from({ length: 200 }, (_, i) => Array.from({ length: i % 5 }, (_, k) => Math.sin(i + k) * 10 ** (k - 2)));
    const packed = await packVectors(vectors);
    const unpacked = unpackVectors(packed);
    expect(unpacked.map((v) => [...v])).toEqual(vectors);
    expect(new Set(unpacked.map((v) => v.buffer))).toEqual(new Set([packed.values.buffer]));
  });

  it('lets the event loop through between slices rather than copying ~1 300 vectors in one go', async () => {
    const vectors = Array.from({ length: 1300 }, () => new Array<number>(1024).fill(0.5));
    const turns: number[] = [];
    let packing = true;
    const tick = () => {
      turns.push(1);
      if (packing) setImmediate(tick);
    };
    setImmediate(tick);
    await packVectors(vectors);
    packing = false;
    // One turn of the loop per slice of 64 (20 of them); a copy in one go would allow none.
    expect(turns.length).toBeGreaterThanOrEqual(15);
  });
});
