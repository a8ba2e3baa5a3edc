/**
 * Personalized PageRank over the bipartite graph of entities and the chunks that mention them
 * (entity_chunks), in the manner of HippoRAG: a walk restarts at the question's seeds (the
 * entities it names, the passages BM25 ranks first) and spreads through shared entities, so a
 * passage about the entity a seed passage mentions (the second hop of a multi-hop question)
 * gathers weight although it shares no words with the question.
 */

/** One mention: `entityId` is named in `chunkId`. */
export interface Mention {
  entityId: number;
  chunkId: number;
}

export interface WalkSeeds {
  /** Entity id → restart weight (before normalisation). */
  entities: Map<number, number>;
  /** Chunk id → restart weight (before normalisation). */
  chunks: Map<number, number>;
}

/** Probability of following a link rather than restarting; HippoRAG's 0.5 keeps the walk near its seeds. */
export const WALK_DAMPING = 0.5;
export const WALK_ITERATIONS = 20;

/**
 * Chunk id → stationary probability of the walk, for every chunk in `mentions`. Entities and
 * chunks are nodes; each mention links both ways; a node spreads its mass evenly over its
 * links. Mass that reaches a node without links returns to the seeds.
 */
export function personalizedPageRank(mentions: Mention[], seeds: WalkSeeds, damping = WALK_DAMPING, iterations = WALK_ITERATIONS): Map<number, number> {
  // Numbers all the way: entities are nodes 0..E-1, chunks E..E+C-1, links in compressed rows
  // (string keys and arrays of arrays were most of a question's walk CPU).
  const entityNode = new Map<number, number>();
  const chunkOrdinal = new Map<number, number>();
  for (const { entityId, chunkId } of mentions) {
    if (!entityNode.has(entityId)) entityNode.set(entityId, entityNode.size);
    if (!chunkOrdinal.has(chunkId)) chunkOrdinal.set(chunkId, chunkOrdinal.size);
  }
  const entityCount = entityNode.size;
  const nodeCount = entityCount + chunkOrdinal.size;
  // Each distinct mention once (both ordinals are below 2^26 here, so the pair key is exact).
  const pairs = new Set<number>();
  const degree = new Uint32Array(nodeCount);
  const ends: Array<[number, number]> = [];
  for (const { entityId, chunkId } of mentions) {
    const e = entityNode.get(entityId)!;
    const c = entityCount + chunkOrdinal.get(chunkId)!;
    const key = e * nodeCount + c;
    if (pairs.has(key)) continue;
    pairs.add(key);
    ends.push([e, c]);
    degree[e]++;
    degree[c]++;
  }
  const start = new Uint32Array(nodeCount + 1);
  for (let i = 0; i < nodeCount; i++) start[i + 1] = start[i] + degree[i];
  const filled = start.slice(0, nodeCount);
  const links = new Uint32Array(start[nodeCount]);
  for (const [e, c] of ends) {
    links[filled[e]++] = c;
    links[filled[c]++] = e;
  }

  const restart = new Float64Array(nodeCount);
  let total = 0;
  const addRestart = (node: number | undefined, weight: number) => {
    if (node === undefined || !(weight > 0)) return;
    restart[node] += weight;
    total += weight;
  };
  for (const [id, weight] of seeds.entities) addRestart(entityNode.get(id), weight);
  for (const [id, weight] of seeds.chunks) {
    const ordinal = chunkOrdinal.get(id);
    addRestart(ordinal === undefined ? undefined : entityCount + ordinal, weight);
  }
  const scores = new Map<number, number>();
  if (total === 0) return scores;
  for (let i = 0; i < nodeCount; i++) restart[i] /= total;

  let rank = Float64Array.from(restart);
  let next = new Float64Array(nodeCount);
  for (let step = 0; step < iterations; step++) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < nodeCount; i++) {
      const from = start[i];
      const to = start[i + 1];
      if (from === to) {
        dangling += rank[i];
        continue;
      }
      const share = (damping * rank[i]) / (to - from);
      for (let l = from; l < to; l++) next[links[l]] += share;
      dangling += (1 - damping) * rank[i];
    }
    for (let i = 0; i < nodeCount; i++) next[i] += dangling * restart[i];
    [rank, next] = [next, rank];
  }
  for (const [chunkId, ordinal] of chunkOrdinal) scores.set(chunkId, rank[entityCount + ordinal]);
  return scores;
}

/**
 * The ids of the `k` best positive scores, best first, ties by the smaller id: what sorting every
 * score would give, in one pass that keeps only the best `k` (a walk scores thousands of chunks
 * and keeps twenty; sorting them all was a visible share of a question's CPU).
 */
export function bestScored(scores: Map<number, number>, k: number): number[] {
  const best: Array<[number, number]> = [];
  const before = (a: [number, number], b: [number, number]) => a[1] > b[1] || (a[1] === b[1] && a[0] < b[0]);
  for (const entry of scores) {
    if (!(entry[1] > 0) || k <= 0) continue;
    if (best.length === k && !before(entry, best[k - 1])) continue;
    let at = best.length === k ? k - 1 : best.length;
    if (best.length < k) best.push(entry);
    while (at > 0 && before(entry, best[at - 1])) {
      best[at] = best[at - 1];
      at--;
    }
    best[at] = entry;
  }
  return best.map(([id]) => id);
}
