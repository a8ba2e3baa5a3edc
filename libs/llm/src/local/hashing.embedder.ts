import type { Embedder, EmbeddingRequest, EmbeddingResult, ProviderName } from '../model.types';
import { countWords, hashEmbed } from './hashing.features';
import type { LocalTextWork } from './local-text-work';
import { localEmbeddingModel } from './models';

/**
 * Texts up to this many characters in all are embedded on the calling thread (~0.5 ms): a
 * question's. An ingestion batch (a chunk, its names and descriptions) goes to the worker
 * threads, whose priority is below the request thread's: at 16 KiB inline, a tenant's ingestion
 * spent ~15 ms of the request thread a document, which every tenant's questions waited behind.
 */
const INLINE_MAX_CHARS = 2 * 1024;

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
  /** `local-hash-v1`, with the width appended when it is not 1024 (see localEmbeddingModel). */
  readonly model: string;

  /**
   * @param work where embeddings of more than INLINE_MAX_CHARS run (worker threads in the API
   *   and the worker, LOCAL_TEXT_WORK); without it, on the calling thread.
   */
  constructor(
    readonly dimensions: number = LOCAL_EMBEDDING_DEFAULT_DIMENSIONS,
    private readonly work?: Pick<LocalTextWork, 'hashEmbed'>,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`local embedder dimensions must be a positive integer, got ${dimensions}`);
    }
    this.model = localEmbeddingModel(dimensions);
  }

  /** `timeoutMs` and `apiKey` do not apply: the work is local. */
  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    const chars = request.texts.reduce((sum, text) => sum + text.length, 0);
    // ~0.25 s a MiB: a chunk's texts with a thousand entity descriptions took 0.5 s.
    if (this.work && chars > INLINE_MAX_CHARS) return { ...(await this.work.hashEmbed(request.texts, this.dimensions)), model: this.model };
    return { ...this.embedHere(request.texts), model: this.model };
  }

  /** The vectors of `texts` and their usage (words), on this thread. */
  embedHere(texts: string[]): { vectors: number[][]; usage: { inputTokens: number } } {
    return {
      vectors: texts.map((text) => this.embedText(text)),
      usage: { inputTokens: texts.reduce((sum, text) => sum + countWords(text), 0) },
    };
  }

  embedText(text: string): number[] {
    return hashEmbed(text, this.dimensions);
  }
}
