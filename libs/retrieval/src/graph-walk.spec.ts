import { personalizedPageRank } from './graph-walk';

describe('personalizedPageRank', () => {
  it('reaches the second hop: a passage about an entity the seed passage names', () => {
    // Seed passage 1 names entity 10 (a person); passage 2 is about 10 and shares no word with the
    // question; passage 3 is about an unrelated entity 20.
    const scores = personalizedPageRank(
      [
        { entityId: 10, chunkId: 1 },
        { entityId: 10, chunkId: 2 },
        { entityId: 20, chunkId: 3 },
        { entityId: 21, chunkId: 3 },
      ],
      { entities: new Map(), chunks: new Map([[1, 1]]) },
    );
    expect(scores.get(2)!).toBeGreaterThan(0);
    expect(scores.get(3) ?? 0).toBe(0);
    expect(scores.get(1)!).toBeGreaterThan(scores.get(2)!);
  });

  it('spreads less through a hub: a chunk reached through a specific entity outranks one reached through a common one', () => {
    const mentions = [
      { entityId: 1, chunkId: 100 }, // the seed passage names a specific entity 1…
      { entityId: 1, chunkId: 101 },
      { entityId: 2, chunkId: 100 }, // …and a hub 2 named in many passages
      ...Array.from({ length: 20 }, (_, i) => ({ entityId: 2, chunkId: 200 + i })),
    ];
    const scores = personalizedPageRank(mentions, { entities: new Map(), chunks: new Map([[100, 1]]) });
    expect(scores.get(101)!).toBeGreaterThan(scores.get(200)!);
  });

  it('restarts at seed entities too, and gives nothing without seeds', () => {
    const mentions = [
      { entityId: 5, chunkId: 50 },
      { entityId: 6, chunkId: 60 },
    ];
    const scores = personalizedPageRank(mentions, { entities: new Map([[5, 1]]), chunks: new Map() });
    expect(scores.get(50)!).toBeGreaterThan(0);
    expect(scores.get(60) ?? 0).toBe(0);
    expect(personalizedPageRank(mentions, { entities: new Map(), chunks: new Map() }).size).toBe(0);
  });
});
