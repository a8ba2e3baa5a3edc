// The stemmer and the stopword list ship no types of their own: vendor-types.d.ts declares them
// (in the program by the tsconfigs' eval/**/*.ts).
import MiniSearch from 'minisearch';
import { eng as englishStopwords } from 'stopword';
import stemPorter2 from 'wink-porter2-stemmer';
import { Passage, passageText } from './corpus';

/**
 * The lexical baseline every Loci mode is compared with: plain BM25 (k1 1.2, b 0.75) over the
 * same passages Loci ingested (title + text), ranked by MiniSearch. MiniSearch scores BM25+;
 * with d = 0 that is plain BM25. Fuzzy and prefix matching stay off (MiniSearch's defaults).
 */
export interface Bm25Analyzer {
  name: string;
  description: string;
  /** A lower-cased token to the term indexed, or null to drop it. */
  term(token: string): string | null;
}

const STOPWORDS = new Set(englishStopwords);

/** Close to PostgreSQL's `english` text search config: English stopwords dropped, Snowball English (Porter2) stems. */
export const ENGLISH_ANALYZER: Bm25Analyzer = {
  name: 'bm25',
  description: 'lower-cased words, English stopwords dropped, Porter2 (Snowball English) stems: like to_tsvector(\'english\')',
  term: (token) => (STOPWORDS.has(token) ? null : stemPorter2(token)),
};

/** The development set README's baseline: a simple tokenizer and English stopwords, no stemming. */
export const PLAIN_ANALYZER: Bm25Analyzer = {
  name: 'bm25-nostem',
  description: 'lower-cased words, English stopwords dropped, no stemming (the development set README\'s baseline)',
  term: (token) => (STOPWORDS.has(token) ? null : token),
};

export const BM25_PARAMS = { k1: 1.2, b: 0.75 };

export class Bm25Ranker {
  private readonly index: MiniSearch<{ id: number; text: string }>;

  constructor(
    private readonly passages: Passage[],
    readonly analyzer: Bm25Analyzer,
  ) {
    this.index = new MiniSearch({
      fields: ['text'],
      processTerm: (term) => analyzer.term(term.toLowerCase()) ?? false,
      searchOptions: { bm25: { k: BM25_PARAMS.k1, b: BM25_PARAMS.b, d: 0 } },
    });
    this.index.addAll(passages.map((p, id) => ({ id, text: passageText(p) })));
  }

  /** Titles of every passage sharing a term with the question, best first. */
  rank(question: string): string[] {
    return this.index.search(question).map((hit) => this.passages[hit.id as number].title);
  }
}
