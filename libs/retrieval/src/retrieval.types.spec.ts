import { LOCAL_EMBEDDING_MODEL, LOCAL_WORD_VECTOR_MODEL, localEmbeddingModel } from '../../llm/src/local/models';
import { channelWeightsFor, HASHING_EMBEDDER_WEIGHTS, MODEL_EMBEDDER_WEIGHTS, WORD_VECTOR_EMBEDDER_WEIGHTS } from './retrieval.types';

describe('channelWeightsFor', () => {
  it('gives the hashing embedder its weights at every width', () => {
    expect(channelWeightsFor(`local:${LOCAL_EMBEDDING_MODEL}`)).toBe(HASHING_EMBEDDER_WEIGHTS);
    expect(channelWeightsFor(`local:${localEmbeddingModel(256)}`)).toBe(HASHING_EMBEDDER_WEIGHTS);
  });

  it('gives the word-vector embedder its own, fitted on the eval: a tie-breaker below the hashing one', () => {
    expect(channelWeightsFor(`local:${LOCAL_WORD_VECTOR_MODEL}`)).toBe(WORD_VECTOR_EMBEDDER_WEIGHTS);
    expect(WORD_VECTOR_EMBEDDER_WEIGHTS.vector).toBeGreaterThan(0);
    expect(WORD_VECTOR_EMBEDDER_WEIGHTS.vector).toBeLessThan(HASHING_EMBEDDER_WEIGHTS.vector);
    expect({ ...WORD_VECTOR_EMBEDDER_WEIGHTS, vector: 0, vectorSearch: undefined }).toEqual({ ...HASHING_EMBEDDER_WEIGHTS, vector: 0, vectorSearch: undefined });
  });

  it('searches the hashing vectors only when the words find nothing; every other embedder beside the words', () => {
    expect(HASHING_EMBEDDER_WEIGHTS.vectorSearch).toBe('fallback');
    expect(WORD_VECTOR_EMBEDDER_WEIGHTS.vectorSearch).toBe('always');
    expect(MODEL_EMBEDDER_WEIGHTS.vectorSearch).toBe('always');
  });

  it("gives a provider's embedder an equal vote with BM25", () => {
    expect(channelWeightsFor('openai:text-embedding-3-small')).toBe(MODEL_EMBEDDER_WEIGHTS);
    expect(MODEL_EMBEDDER_WEIGHTS.vector).toBe(MODEL_EMBEDDER_WEIGHTS.lexical);
  });
});
