import { CorpusStatsMemo } from './corpus-stats.memo';
import type { CorpusStats } from './lexical.queries';
import { KnownFrequencies, LearnedFrequencies, LexemeFrequencyMemo, NOTHING_KNOWN } from './lexeme-frequencies.memo';
import type { Scope } from './visibility.sql';

/**
 * What a BM25 statement is given of a graph's statistics, and what it reports back: N and avgdl
 * (CorpusStatsMemo) and, for a graph whose N and avgdl are remembered (a large one), the
 * question's document frequencies (LexemeFrequencyMemo, record 0081). One per repository that
 * runs BM25 (/v1/query's and gb's).
 */
export class Bm25StatisticsMemo {
  private readonly corpus = new CorpusStatsMemo();
  private readonly frequencies = new LexemeFrequencyMemo();

  /** The statement's `corpus` (undefined: counted) and `known` arguments for `text` in the graph. */
  inputs(scope: Scope, text: string): { corpus?: CorpusStats; known: KnownFrequencies } {
    const corpus = this.corpus.get(scope);
    return corpus ? { corpus, known: this.frequencies.known(scope, text) } : { known: NOTHING_KNOWN };
  }

  /** Keeps what a BM25 statement's row carries: `corpus_chunks`, `corpus_mean_length` (the passages' statement) and `learned`. */
  learn(scope: Scope, row: Record<string, unknown>): void {
    const chunks = Number(row.corpus_chunks);
    if (row.corpus_mean_length !== undefined && row.corpus_mean_length !== null) {
      this.corpus.remember(scope, { chunks, meanLength: Number(row.corpus_mean_length) });
    }
    if (row.learned === null || row.learned === undefined) return;
    // A json column: both drivers parse it; a text value (a driver told not to) is parsed here.
    const learned = (typeof row.learned === 'string' ? JSON.parse(row.learned) : row.learned) as LearnedFrequencies;
    this.frequencies.learn(scope, chunks, learned);
  }
}
