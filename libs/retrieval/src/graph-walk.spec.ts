import { bestScored, personalizedPageRank } from './graph-walk';

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

  it('equals the walk written out as dense power iteration (duplicates once, dangling mass back to the seeds)', () => {
    let state = 7;
    const random = (n: number) => ((state = (state * 1103515245 + 12345) % 2 ** 31), state % n);
    const mentions = Array.from({ length: 300 }, () => ({ entityId: random(40) - 5, chunkId: 1000 + random(60) }));
    const seeds = { entities: new Map([[3, 2], [-2, 1], [999, 5]]), chunks: new Map([[1001, 1], [1007, 0.5]]) };
    const scores = personalizedPageRank(mentions, seeds, 0.5, 20);

    const nodes = [...new Set(mentions.flatMap((m) => [`e${m.entityId}`, `c${m.chunkId}`]))];
    const at = new Map(nodes.map((key, i) => [key, i]));
    const adjacent = nodes.map(() => new Set<number>());
    for (const m of mentions) {
      adjacent[at.get(`e${m.entityId}`)!].add(at.get(`c${m.chunkId}`)!);
      adjacent[at.get(`c${m.chunkId}`)!].add(at.get(`e${m.entityId}`)!);
    }
    const restart = nodes.map((key) => (key.startsWith('e') ? seeds.entities.get(Number(key.slice(1))) : seeds.chunks.get(Number(key.slice(1)))) ?? 0);
    const sum = restart.reduce((a, b) => a + b, 0);
    let rank = restart.map((r) => r / sum);
    for (let step = 0; step < 20; step++) {
      const next = nodes.map(() => 0);
      let back = 0;
      rank.forEach((mass, i) => {
        const out = [...adjacent[i]];
        for (const j of out) next[j] += (0.5 * mass) / out.length;
        back += 0.5 * mass;
      });
      rank = next.map((value, i) => value + (back * restart[i]) / sum);
    }
    const chunkKeys = nodes.filter((key) => key.startsWith('c'));
    expect([...scores.keys()].sort()).toEqual(chunkKeys.map((key) => Number(key.slice(1))).sort());
    for (const key of chunkKeys) expect(scores.get(Number(key.slice(1)))!).toBeCloseTo(rank[at.get(key)!], 12);
  });
});

describe('bestScored', () => {
  const sortedTop = (scores: Map<number, number>, k: number) =>
    [...scores].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k).map(([id]) => id);

  it('gives the ids a full sort would, best first, ties by the smaller id, no zero or negative score', () => {
    const scores = new Map([[7, 0.5], [3, 0.5], [9, 0.9], [1, 0], [4, -1], [5, 0.1], [2, 0.5]]);
    expect(bestScored(scores, 3)).toEqual([9, 2, 3]);
    expect(bestScored(scores, 10)).toEqual([9, 2, 3, 7, 5]);
    expect(bestScored(scores, 0)).toEqual([]);
  });

  it('agrees with a full sort on random scores with many ties', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 50; round++) {
      const scores = new Map<number, number>();
      for (let i = 0; i < 300; i++) scores.set(Math.floor(random() * 10_000), Math.floor(random() * 20) / 20 - 0.1);
      for (const k of [1, 5, 20, 400]) expect(bestScored(scores, k)).toEqual(sortedTop(scores, k));
    }
  });
});
