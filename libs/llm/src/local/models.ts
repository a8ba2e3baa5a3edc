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

/** Extraction, keywords, summaries and answers: NLP library + extractive text, no generation. */
export const LOCAL_TEXT_MODEL = 'local-nlp-v1';
