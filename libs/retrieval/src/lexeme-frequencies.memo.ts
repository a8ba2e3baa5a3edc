import { REMEMBER_CORPUS_FROM_CHUNKS, CORPUS_STATS_TTL_MS } from './corpus-stats.memo';
import type { Scope } from './visibility.sql';

/** What the BM25 statements are given: the document frequencies already known, and the words whose lexemes are not. */
export interface KnownFrequencies {
  /** Lexeme → the number of the graph's chunks holding it, for the question's lexemes remembered. */
  frequencies: Record<string, number>;
  /** The question's words whose lexemes this process has not seen yet: the statement analyses them. */
  unmappedWords: string[];
}

/** What a BM25 statement reports back (lexical.queries.ts, `learned`). */
export interface LearnedFrequencies {
  /** The lexemes it counted, with their document frequencies. */
  frequencies: Record<string, number>;
  /** Each word it was asked to analyse → its lexemes (none for a stopword). */
  words: Record<string, string[]>;
}

export const NOTHING_KNOWN: KnownFrequencies = Object.freeze({ frequencies: Object.freeze({}), unmappedWords: Object.freeze([]) as unknown as string[] });

/** Remembered document frequencies in all, over every graph; past this the memo starts over. */
export const MAX_FREQUENCIES = 50_000;
/** Words whose lexemes are remembered; past this the map starts over. */
export const MAX_WORDS = 50_000;

/**
 * BM25's document frequencies per large graph and lexeme, remembered for a minute (record 0081).
 * Counting a lexeme's postings is a key-range count that grows with the graph: at 375k edges it
 * was ~9 ms of a mix question's ~35 ms of database CPU (a common word's range holds thousands of
 * postings, and the passages' and the facts' statements each counted theirs). A minute of
 * ingestion moves a frequency by little, as it does N and avgdl (CorpusStatsMemo, whose rule
 * this follows: graphs under REMEMBER_CORPUS_FROM_CHUNKS chunks are always counted).
 *
 * Which frequencies to send is decided by the question's words: each word's lexemes are learned
 * from PostgreSQL's own analysis of it (the statement analyses the words it is given), so no
 * stemmer runs here. The statement still analyses the whole question itself, and counts any of
 * its lexemes it is not given: a word split otherwise here only costs a count, never a result.
 *
 * What one tenant can do to others: its words and lexemes fill the shared bounds, so others'
 * frequencies are counted again, a cost of ~ms per question, never a different answer.
 */
export class LexemeFrequencyMemo {
  private readonly frequencies = new Map<string, { df: number; at: number }>();
  private readonly lexemesOfWord = new Map<string, string[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The known frequencies of `text`'s lexemes in the graph, and the words still to analyse. */
  known(scope: Scope, text: string): KnownFrequencies {
    const frequencies: Record<string, number> = {};
    const unmappedWords: string[] = [];
    const now = this.now();
    for (const word of wordsOf(text)) {
      const lexemes = this.lexemesOfWord.get(word);
      if (lexemes === undefined) {
        unmappedWords.push(word);
        continue;
      }
      for (const lexeme of lexemes) {
        const entry = this.frequencies.get(key(scope, lexeme));
        if (entry === undefined) continue;
        if (now - entry.at > CORPUS_STATS_TTL_MS) this.frequencies.delete(key(scope, lexeme));
        else frequencies[lexeme] = entry.df;
      }
    }
    return { frequencies, unmappedWords };
  }

  /** Keeps what a statement counted in a graph of `chunks` chunks (only a large graph's), and the words it analysed. */
  learn(scope: Scope, chunks: number, learned: LearnedFrequencies): void {
    for (const [word, lexemes] of Object.entries(learned.words)) {
      if (this.lexemesOfWord.size >= MAX_WORDS) this.lexemesOfWord.clear();
      this.lexemesOfWord.set(word, lexemes);
    }
    if (!(chunks >= REMEMBER_CORPUS_FROM_CHUNKS)) return;
    const at = this.now();
    for (const [lexeme, df] of Object.entries(learned.frequencies)) {
      if (!Number.isFinite(df)) continue;
      if (this.frequencies.size >= MAX_FREQUENCIES) this.frequencies.clear();
      this.frequencies.set(key(scope, lexeme), { df, at });
    }
  }

  /** How many frequencies and words are held now, over every graph (for tests and diagnostics). */
  get size(): { frequencies: number; words: number } {
    return { frequencies: this.frequencies.size, words: this.lexemesOfWord.size };
  }
}

/** The distinct lower-cased runs of letters and digits of `text`. */
export function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
}

const key = ({ tenantId, graphId }: Scope, lexeme: string) => `${tenantId}:${graphId}:${lexeme}`;
