export { LOCAL_EMBEDDING_MODEL, LOCAL_PROVIDER, LOCAL_TEXT_MODEL, localEmbeddingModel } from './models';
export { LocalHashingEmbedder, LOCAL_EMBEDDING_DEFAULT_DIMENSIONS } from './hashing.embedder';
export { extractLocally, type LocalExtractOptions } from './extractor';
export { keywordsLocally } from './keywords';
export { detectPlacesLocally } from './places';
export { summarizeLocally, type SummaryOptions } from './summarizer';
export {
  answerLocally,
  cosine,
  ANSWER_MAX_SENTENCES,
  ANSWER_RELATIVE_FLOOR,
  ANSWER_SIMILARITY_FLOOR,
  LOCAL_NO_INFORMATION_ANSWER,
} from './answerer';
export { splitSentences, splitParagraphs, normalizeWhitespace, truncateText } from './sentences';
