import type { CitableSource, Extraction, Keywords } from '../tasks.types';
import { extractLocally, type LocalExtractOptions } from './extractor';
import { answerWithHashingEmbedder, type HashedAnswer } from './hashed-answer';
import { LocalHashingEmbedder } from './hashing.embedder';
import { keywordsLocally } from './keywords';
import { summarizeLocally } from './summarizer';

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
};
