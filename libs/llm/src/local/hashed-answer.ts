import type { Answer, CitableSource } from '../tasks.types';
import { answerLocally } from './answerer';
import { LocalHashingEmbedder } from './hashing.embedder';

/** A local answer and what its embedding call used (the ledger records that call). */
export interface HashedAnswer {
  answer: Answer;
  /** Input tokens of the embedding call, as the hashing embedder counts them (words). */
  embedInputTokens: number;
}

/**
 * answerLocally with the offline hashing embedder built here rather than reached through the
 * gateway, so that the whole answer (sentence splitting, embedding, ranking) can run on a worker
 * thread; the caller records the embedding call from `embedInputTokens`.
 */
export async function answerWithHashingEmbedder(question: string, sources: CitableSource[], dimensions: number): Promise<HashedAnswer> {
  const hashing = new LocalHashingEmbedder(dimensions);
  let embedInputTokens = 0;
  const answer = await answerLocally(question, sources, {
    provider: hashing.provider,
    model: hashing.model,
    dimensions: hashing.dimensions,
    embed: async (request) => {
      const result = await hashing.embed(request);
      embedInputTokens += result.usage.inputTokens;
      return result;
    },
  });
  return { answer, embedInputTokens };
}
