import type { Embedder, EmbeddingRequest, EmbeddingResult, ProviderName } from '../model.types';
import { hashTokens } from './hashing.features';
import { LOCAL_WORD_VECTOR_MODEL } from './models';
import { wordVectors, type WordVectors } from './word-vectors';

/**
 * SIF's smoothing constant (Arora, Liang and Ma, 2017): a word of probability p weighs a/(a + p),
 * so the most frequent words count for almost nothing and rare ones fully.
 */
const SIF_A = 1e-4;

/**
 * The offline word-vector embedder (`local-wordvec-v1`): the frequency-weighted mean of the
 * pretrained (GloVe) vectors of a text's words, L2-normalised, 100-d. Unlike the hashing
 * embedder it puts "employment" near "job" and "car" near "automobile"; words outside its
 * 50,000-word vocabulary (most names) add nothing, and a text with none gets the zero vector.
 *
 * A word's weight needs its probability; the vocabulary is in frequency order, so it is read
 * off the rank by Zipf's law (p ≈ 1 / (rank · H), H the harmonic number of the vocabulary).
 */
export class LocalWordVectorEmbedder implements Embedder {
  readonly provider: ProviderName = 'local';
  readonly model = LOCAL_WORD_VECTOR_MODEL;
  readonly dimensions: number;
  private readonly weights: Float32Array;

  constructor(private readonly vectors: WordVectors = wordVectors()) {
    this.dimensions = vectors.dimensions;
    const count = vectors.scales.length;
    const harmonic = Math.log(count) + 0.5772;
    this.weights = new Float32Array(count);
    for (let rank = 0; rank < count; rank++) this.weights[rank] = SIF_A / (SIF_A + 1 / ((rank + 1) * harmonic));
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    return {
      vectors: request.texts.map((text) => this.embedText(text)),
      usage: { inputTokens: request.texts.reduce((sum, text) => sum + hashTokens(text).length, 0) },
      model: this.model,
    };
  }

  embedText(text: string): number[] {
    const { dimensions, ranks, scales, components } = this.vectors;
    const sum = new Float64Array(dimensions);
    for (const token of hashTokens(text)) {
      const rank = ranks.get(token);
      if (rank === undefined) continue;
      const factor = this.weights[rank] * scales[rank];
      const base = rank * dimensions;
      for (let d = 0; d < dimensions; d++) sum[d] += factor * components[base + d];
    }
    let norm = 0;
    for (let d = 0; d < dimensions; d++) norm += sum[d] * sum[d];
    norm = Math.sqrt(norm);
    const vector = new Array<number>(dimensions);
    for (let d = 0; d < dimensions; d++) vector[d] = norm === 0 ? 0 : sum[d] / norm;
    return vector;
  }
}
