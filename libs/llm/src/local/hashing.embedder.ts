import type { Embedder, EmbeddingRequest, EmbeddingResult, ProviderName } from '../model.types';
import { countWords, hashEmbed } from './hashing.features';
import { LOCAL_EMBEDDING_MODEL } from './models';

/** The width of the store's vector columns (`EMBEDDING_DIMENSIONS` in libs/db). */
export const LOCAL_EMBEDDING_DEFAULT_DIMENSIONS = 1024;

/**
 * The offline embedder: deterministic feature hashing of word unigrams, content-word bigrams
 * and character 3–5-grams (see `hashing.features.ts`), L2-normalised. No model, no network,
 * no cost; the same text gives the same vector in every process and on every machine.
 *
 * It captures shared words and word pieces, not meaning: "Where does Alice work?" is close to
 * "Alice works at Acme" but "car" is not close to "automobile".
 *
 * A text with no word in it (empty, blank or punctuation only) gets the zero vector: cosine
 * similarity with it is undefined (pgvector returns NaN), so callers should not index or
 * search with one.
 */
export class LocalHashingEmbedder implements Embedder {
  readonly provider: ProviderName = 'local';
  readonly model = LOCAL_EMBEDDING_MODEL;

  constructor(readonly dimensions: number = LOCAL_EMBEDDING_DEFAULT_DIMENSIONS) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`local embedder dimensions must be a positive integer, got ${dimensions}`);
    }
  }

  /** `timeoutMs` and `apiKey` do not apply: the work is local and takes microseconds a text. */
  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    return {
      vectors: request.texts.map((text) => this.embedText(text)),
      usage: { inputTokens: request.texts.reduce((sum, text) => sum + countWords(text), 0) },
      model: this.model,
    };
  }

  embedText(text: string): number[] {
    return hashEmbed(text, this.dimensions);
  }
}
