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
  mode: RetrievalMode;
  /** naive and mix: the vector of the question itself. */
  questionVector?: number[];
  /** local, hybrid, mix: the vector of the low-level keywords joined. */
  lowLevelVector?: number[];
  /** global, hybrid, mix: the vector of the high-level keywords joined. */
  highLevelVector?: number[];
  budgets?: Partial<RetrievalBudgets>;
  /** Rows per vector search; default 20. */
  topK?: number;
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
  /** Cosine similarity of the search that found it (naive), or of the entity/edge it supports. */
  score: number;
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
