import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import type { RetrievalMode, RetrievalRequest } from '../../libs/retrieval/src/retrieval.types';

/** A bench question as `bench:seed` writes it (bench/data/questions-*.json). */
export interface BenchQuestion {
  query: string;
  hl_keywords: string[];
  ll_keywords: string[];
}

/**
 * The RetrievalService request for a bench question in a mode, on the seed's large tenant, with
 * the offline hashing embedder's vectors as the API would send them: the question's for naive and
 * mix, the keyword lists' for the graph modes. Shared by the retrieval experiments.
 */
export function benchRequests(file: { large_tenant: { tenant_id: string; graph_id: string | number } }) {
  const embedder = new LocalHashingEmbedder();
  return (mode: RetrievalMode, q: BenchQuestion): RetrievalRequest => ({
    tenantId: file.large_tenant.tenant_id,
    graphId: Number(file.large_tenant.graph_id),
    mode,
    questionText: q.query,
    highLevelKeywords: q.hl_keywords,
    embeddingModel: 'local:local-hash-v1',
    ...(mode === 'naive' || mode === 'mix' ? { questionVector: embedder.embedText(q.query) } : {}),
    ...(mode !== 'naive' && q.ll_keywords.length ? { lowLevelVector: embedder.embedText(q.ll_keywords.join(', ')) } : {}),
    ...(mode !== 'naive' && q.hl_keywords.length ? { highLevelVector: embedder.embedText(q.hl_keywords.join(', ')) } : {}),
  });
}
