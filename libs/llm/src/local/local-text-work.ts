import type { Extraction } from '../tasks.types';
import { extractLocally, type LocalExtractOptions } from './extractor';
import { summarizeLocally } from './summarizer';

/**
 * Where the offline provider's heavy text stages run. Extracting a chunk takes ~0.15 ms a
 * character (a second for a 6 KB chunk), far too long for the thread that answers requests, so
 * the ingestion module provides an implementation on worker threads (LOCAL_TEXT_WORK); without
 * one (a CLI, a unit test) they run on the calling thread.
 */
export interface LocalTextWork {
  extract(text: string, options: LocalExtractOptions): Promise<Extraction>;
  summarize(text: string): Promise<string>;
}

export type { LocalExtractOptions } from './extractor';

export const LOCAL_TEXT_WORK = Symbol('LOCAL_TEXT_WORK');

export const inlineLocalTextWork: LocalTextWork = {
  extract: async (text, options) => extractLocally(text, options),
  summarize: async (text) => summarizeLocally(text),
};
