import type { CitableSource, Extraction, Keywords } from '../tasks.types';
import { extractLocally, type LocalExtractOptions } from './extractor';
import { answerWithHashingEmbedder, type HashedAnswer } from './hashed-answer';
import { LocalHashingEmbedder } from './hashing.embedder';
import { keywordsLocally } from './keywords';
import { summarizeLocally } from './summarizer';
import { countTokens } from '../metering/token-counter';

/**
 * Where the offline provider's heavy text stages run. Extracting a chunk takes ~0.15 ms a
 * character (a second for a 6 KB chunk); the keywords of a 64 KiB question took 3.6 s, a local
 * answer over a 64 KB context 0.3 s (compromise parses every sentence), hashing a chunk's texts
 * with a thousand entity descriptions 0.5 s: far too long for the
 * thread that answers requests, so the ingestion module provides an implementation on worker
 * threads (LOCAL_TEXT_WORK); without one (a CLI, a unit test) they run on the calling thread.
 */
export interface LocalTextWork {
  extract(text: string, options: LocalExtractOptions): Promise<Extraction>;
  summarize(text: string): Promise<string>;
  keywords(question: string): Promise<Keywords>;
  /** LocalHashingEmbedder's vectors of `texts` and their usage (words). */
  hashEmbed(texts: string[], dimensions: number): Promise<{ vectors: number[][]; usage: { inputTokens: number } }>;
  /** The local answer when the embedder is the offline hashing one too (of `dimensions`). */
  answerWithHashing(question: string, sources: CitableSource[], dimensions: number): Promise<HashedAnswer>;
  /**
   * countTokens of each text: the metering of a local stage's input and output. The output of an
   * extraction naming a thousand people is ~150 KB of JSON, whose count held the event loop for
   * ~0.4 s.
   */
  countTokens(texts: string[]): Promise<number[]>;
}

export type { LocalExtractOptions } from './extractor';
export type { HashedAnswer } from './hashed-answer';

export const LOCAL_TEXT_WORK = Symbol('LOCAL_TEXT_WORK');

export const inlineLocalTextWork: LocalTextWork = {
  extract: async (text, options) => extractLocally(text, options),
  summarize: async (text) => summarizeLocally(text),
  keywords: async (question) => keywordsLocally(question),
  hashEmbed: async (texts, dimensions) => new LocalHashingEmbedder(dimensions).embedHere(texts),
  answerWithHashing: answerWithHashingEmbedder,
  countTokens: async (texts) => texts.map(countTokens),
};

/**
 * A local stage's texts up to this many characters in all are counted on the calling thread
 * (well under a millisecond); longer ones where its heavy work runs (countLocalTokens).
 */
export const TOKENS_COUNTED_INLINE_CHARS = 4096;

/**
 * The input and output tokens of a local stage, counted by `work` (the CPU pool's threads in the
 * API) unless the texts are short enough that a thread's round trip would cost more.
 */
export async function countLocalTokens(work: Pick<LocalTextWork, 'countTokens'>, input: string, output: string): Promise<number[]> {
  if (input.length + output.length <= TOKENS_COUNTED_INLINE_CHARS) return [countTokens(input), countTokens(output)];
  return work.countTokens([input, output]);
}
