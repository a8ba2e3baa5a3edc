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
  const index = new Map<string, number>();
  const node = (key: string) => {
    let i = index.get(key);
    if (i === undefined) index.set(key, (i = index.size));
    return i;
  };
  const links: number[][] = [];
  const link = (a: number, b: number) => {
    (links[a] ??= []).push(b);
  };
  const seen = new Set<string>();
  for (const { entityId, chunkId } of mentions) {
    const pair = `${entityId}:${chunkId}`;
    if (seen.has(pair)) continue;
    seen.add(pair);
    const e = node(`e${entityId}`);
    const c = node(`c${chunkId}`);
    link(e, c);
    link(c, e);
  }
  const restart = new Float64Array(index.size);
  let total = 0;
  for (const [kind, weights] of [['e', seeds.entities], ['c', seeds.chunks]] as const) {
    for (const [id, weight] of weights) {
      const i = index.get(`${kind}${id}`);
      if (i === undefined || !(weight > 0)) continue;
      restart[i] += weight;
      total += weight;
    }
  }
  const scores = new Map<number, number>();
  if (total === 0) return scores;
  for (let i = 0; i < restart.length; i++) restart[i] /= total;

  let rank = Float64Array.from(restart);
  for (let step = 0; step < iterations; step++) {
    const next = new Float64Array(rank.length);
    let dangling = 0;
    for (let i = 0; i < rank.length; i++) {
      const out = links[i];
      if (!out || out.length === 0) {
        dangling += rank[i];
        continue;
      }
      const share = (damping * rank[i]) / out.length;
      for (const j of out) next[j] += share;
      dangling += (1 - damping) * rank[i];
    }
    for (let i = 0; i < next.length; i++) next[i] += dangling * restart[i];
    rank = next;
  }
  for (const [key, i] of index) if (key.startsWith('c')) scores.set(Number(key.slice(1)), rank[i]);
  return scores;
}
