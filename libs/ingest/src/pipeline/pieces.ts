import { chunkText, needsChunking } from '../chunking';

/** A part of a stored text that is ingested as one: a chunk, or a whole short gb text. */
export interface Piece {
  /** Chunk index; null for a gb text short enough to stay whole (no chunk row). */
  index: number | null;
  text: string;
  tokenCount: number;
}

export interface PieceOptions {
  /** gb remember texts that fit in one chunk stay whole; documents are always chunked. */
  keepWholeIfFits: boolean;
  chunkTokens: number;
  chunkOverlapTokens: number;
}

/**
 * The pieces of a text to ingest. gb: "texts that were not chunked have no passage"; documents
 * always get chunks, so that vector search over chunks (naive, mix) finds short documents too.
 */
export function piecesOf(text: string, options: PieceOptions): Piece[] {
  if (options.keepWholeIfFits && !needsChunking(text, options.chunkTokens)) {
    return [{ index: null, text, tokenCount: 0 }];
  }
  return chunkText(text, { maxTokens: options.chunkTokens, overlapTokens: options.chunkOverlapTokens }).map((c) => ({
    index: c.index,
    text: c.text,
    tokenCount: c.tokenCount,
  }));
}
