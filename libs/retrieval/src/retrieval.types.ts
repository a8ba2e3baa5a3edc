import type { VectorTier } from '@loci/db';
/** The search modes of `/v1/query` (LightRAG's names). */
export type RetrievalMode = 'local' | 'global' | 'hybrid' | 'naive' | 'mix';

export const RETRIEVAL_MODES: readonly RetrievalMode[] = ['local', 'global', 'hybrid', 'naive', 'mix'];

/** Token budgets of the context, one per section; items past a budget are dropped. */
export interface RetrievalBudgets {
  entityTokens: number;
  relationTokens: number;
  chunkTokens: number;
}

export const DEFAULT_RETRIEVAL_BUDGETS: Readonly<RetrievalBudgets> = Object.freeze({
  entityTokens: 2000,
  relationTokens: 3000,
  chunkTokens: 6000,
});

/** Rows each vector search returns (before expansion and budgets). */
export const DEFAULT_TOP_K = 20;

export interface RetrievalRequest {
  tenantId: string;
  graphId: number;
  /** Where the graph keeps its searched vectors (vectorTierOf its row); shared when unset. */
  vectorTier?: VectorTier;
  mode: RetrievalMode;
  /** naive and mix: the vector of the question itself. */
  questionVector?: number[];
  /** local, hybrid, mix: the vector of the low-level keywords joined. */
  lowLevelVector?: number[];
  /** global, hybrid, mix: the vector of the high-level keywords joined. */
  highLevelVector?: number[];
  /**
   * The question's text: searched lexically (BM25) beside its vector (naive, mix), matched
   * against entity names (local), and matched against the facts of the passages BM25 ranks
   * first (global).
   */
  questionText?: string;
  /** The embedder (`provider:model`) of the vectors: only rows it embedded are compared with them. */
  embeddingModel?: string;
  /** global: the high-level keywords, matched against facts with the question. */
  highLevelKeywords?: string[];
  budgets?: Partial<RetrievalBudgets>;
  /** Rows per search; default 20. */
  topK?: number;
  /**
   * What the caller keeps of the ranked context (LightRAG's QueryParam): at most `entities`
   * entities and as many relations (`top_k`), at most `chunks` chunks (`chunk_top_k`), and at
   * most `totalTokens` tokens of all three rendered together (`max_total_tokens`). Unset: the
   * budgets alone cut.
   */
  keep?: { entities?: number; chunks?: number; totalTokens?: number };
  /** How much each channel's ranking counts when the chunk lists are fused. */
  weights?: Partial<ChannelWeights>;
  /** Valid time (`as_of`): what was true at this instant, by everything known now. Unset: now. */
  asOf?: Date;
  /** Record time (`known_at`): only what had been recorded by this instant. Unset: everything recorded. */
  knownAt?: Date;
}

/**
 * The weight of each ranked list of chunks in the fusion (weighted reciprocal rank): the
 * lexical (BM25) and vector searches over chunks, and the chunks the graph paths reached.
 * 0 leaves a list out.
 */
export interface ChannelWeights {
  lexical: number;
  vector: number;
  local: number;
  global: number;
  /**
   * When the vector lists weighed by `vector` (chunks nearest the question, facts nearest the
   * high-level keywords) are searched: 'always' (the default), beside the words; or 'fallback',
   * only when the words find nothing for that list (no passage by BM25 or a named document; no
   * fact by its words), then after them. Mix searches its chunks' list always (record 0076).
   */
  vectorSearch?: 'always' | 'fallback';
}

/**
 * Weights for an embedder that captures meaning (a provider's model) and for the offline
 * hashing embedder, whose similarity is little more than shared tokens without IDF: there BM25
 * leads, and the vector lists are searched only for a question whose words find nothing (a
 * hashing vector's neighbours share its tokens, which BM25 with IDF has already ranked better;
 * record 0076). Measured on the development eval (docs/QUALITY.md).
 */
export const MODEL_EMBEDDER_WEIGHTS: Readonly<ChannelWeights> = Object.freeze({ lexical: 1, vector: 1, local: 0.5, global: 0.2, vectorSearch: 'always' });
export const HASHING_EMBEDDER_WEIGHTS: Readonly<ChannelWeights> = Object.freeze({
  lexical: 1,
  vector: 0.2,
  local: 0.5,
  global: 0.2,
  vectorSearch: 'fallback',
});
/**
 * The offline word-vector embedder (`local:local-wordvec-v1`, opt-in): alone it ranks far below
 * BM25 and below the hashing embedder (recall@2 0.28 against 0.475), and every vector weight
 * above 0.1 lowered naive and mix on the eval (eval/src/fit-weights.ts; docs/QUALITY.md). It
 * keeps a tie-breaker's weight rather than 0 so that a question sharing no lexeme with the
 * graph still gets the vector hits.
 */
export const WORD_VECTOR_EMBEDDER_WEIGHTS: Readonly<ChannelWeights> = Object.freeze({ lexical: 1, vector: 0.1, local: 0.5, global: 0.2, vectorSearch: 'always' });

/**
 * The weights measured for the embedder (`provider:model`) the question's vectors come from:
 * each offline embedder its own (the hashing one at any width), a provider's model an equal vote.
 */
export function channelWeightsFor(embeddingModel: string): Readonly<ChannelWeights> {
  if (embeddingModel === 'local:local-wordvec-v1') return WORD_VECTOR_EMBEDDER_WEIGHTS;
  if (embeddingModel.startsWith('local:')) return HASHING_EMBEDDER_WEIGHTS;
  return MODEL_EMBEDDER_WEIGHTS;
}

export interface RetrievedChunk {
  chunkId: number;
  documentId: number;
  documentName: string;
  documentDate: Date | null;
  loadedAt: Date;
  text: string;
  /**
   * Tokens of `text` as ingestion counted them (`chunks.token_count`, the same o200k counter the
   * budgets use), so budgets need not tokenize the text again; counted afresh when absent.
   */
  tokenCount?: number;
  /** Cosine similarity of the search that found it (naive), or of the entity/edge it supports; 0 when only BM25 found it. */
  score: number;
  /** BM25 score when the lexical search found it. */
  lexicalScore?: number;
}

export interface RetrievedEntity {
  id: number;
  name: string;
  type: string | null;
  description: string | null;
  /** Cosine similarity to the low-level vector (local), or the best of its edges' (global). */
  score: number;
}

export interface RetrievedRelation {
  id: number;
  sourceId: number;
  targetId: number;
  source: string;
  target: string;
  relation: string;
  description: string | null;
  keywords: string | null;
  weight: number;
  validAt: Date | null;
  /** Set on ended facts (still returned, with their dates); superseded facts are never returned. */
  invalidAt: Date | null;
}

export interface RetrievedContext {
  chunks: RetrievedChunk[];
  entities: RetrievedEntity[];
  relations: RetrievedRelation[];
  /** True when a budget cut or dropped anything. */
  truncated: boolean;
  /** Milliseconds per stage (`local.entities`, `global.edges`, `naive.chunks`, `budget`, `total`…). */
  timings: Record<string, number>;
}
