export {
  chunkText,
  needsChunking,
  DEFAULT_CHUNK_MAX_TOKENS,
  DEFAULT_CHUNK_OVERLAP_TOKENS,
  MIN_CHUNK_MAX_TOKENS,
  type ChunkOptions,
  type TextChunk,
} from './chunker';
