import type { CorpusStats } from './lexical.queries';
import type { Scope } from './visibility.sql';

/** Below this many chunks a graph's N and avgdl are counted afresh: it is cheap, and they move fast. */
export const REMEMBER_CORPUS_FROM_CHUNKS = 200;
/** How long remembered stats are used before they are counted again. */
export const CORPUS_STATS_TTL_MS = 60_000;
const MAX_GRAPHS = 10_000;

/**
 * BM25's N (chunks) and avgdl (mean chunk length) per large graph, remembered for a minute:
 * counting them scans the graph's chunk rows, which grows with the graph, while a minute of
 * ingestion moves them by little (IDF is a logarithm of N). Per process; small graphs are
 * always counted, so a fresh tenant's first documents count at once.
 */
export class CorpusStatsMemo {
  private readonly known = new Map<string, { stats: CorpusStats; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(scope: Scope): CorpusStats | undefined {
    const entry = this.known.get(key(scope));
    if (!entry) return undefined;
    if (this.now() - entry.at > CORPUS_STATS_TTL_MS) {
      this.known.delete(key(scope));
      return undefined;
    }
    return entry.stats;
  }

  remember(scope: Scope, stats: CorpusStats): void {
    if (!(stats.chunks >= REMEMBER_CORPUS_FROM_CHUNKS) || this.known.has(key(scope))) return;
    if (this.known.size >= MAX_GRAPHS) this.known.clear();
    this.known.set(key(scope), { stats, at: this.now() });
  }
}

const key = ({ tenantId, graphId }: Scope) => `${tenantId}:${graphId}`;
