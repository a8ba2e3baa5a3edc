/**
 * Names the offline `local` provider records in the inference ledger. They start with `local-`
 * so a reader of the ledger (and the cost code: the local provider costs 0) can tell them apart
 * from real models at a glance.
 */
export const LOCAL_PROVIDER = 'local' as const;

/**
 * The feature-hashing embedder. Vectors from different versions are not comparable: any change
 * to its features (tokens, stopwords, stemming, weights, hash) must come with a new name.
 */
export const LOCAL_EMBEDDING_MODEL = 'local-hash-v1';

/**
 * The word-vector embedder: SIF-weighted mean of pretrained GloVe vectors of a 50,000-word
 * vocabulary (libs/llm/assets). A measured alternative to the hashing embedder; see
 * docs/QUALITY.md for whether it is the default.
 */
export const LOCAL_WORD_VECTOR_MODEL = 'local-wordvec-v1';

/** The width the store's columns hold and the offline embedder's default. */
const LOCAL_EMBEDDING_FULL_WIDTH = 1024;

/**
 * The name of the offline embedder at `dimensions`: `local-hash-v1` at the full width, with the
 * width appended otherwise (`local-hash-v1-256d`). Features are hashed modulo the width, so
 * vectors of two widths are not comparable and must not share a name (rows are searched by it).
 */
export function localEmbeddingModel(dimensions: number): string {
  return dimensions === LOCAL_EMBEDDING_FULL_WIDTH ? LOCAL_EMBEDDING_MODEL : `${LOCAL_EMBEDDING_MODEL}-${dimensions}d`;
}

/** Extraction, keywords, summaries and answers: NLP library + extractive text, no generation. */
export const LOCAL_TEXT_MODEL = 'local-nlp-v1';
