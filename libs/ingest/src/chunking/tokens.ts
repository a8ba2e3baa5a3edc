import { clearMergeCache, countTokens as countPlainTokens, decode, encode } from 'gpt-tokenizer';
// The model layer's counter by path: the chunker runs in worker threads (CpuPool), which should
// not load the model layer's SDKs and NestJS through `@loci/llm`.
import { countTokens, countTokensWithin } from '../../../llm/src/metering/token-counter';
import { isSafeCut, splitsCodePoint, TextRange } from './sentence-ranges';

// Uploaded text may contain the literal strings of the tokenizer's special tokens
// ("<|endoftext|>"); gpt-tokenizer refuses those by default. To the chunker they are plain text.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Tokens of `text` as the rest of Loci counts them (o200k, via the model layer's counter), so that
 * a chunk's tokenCount agrees with what metering will later reserve for it.
 */
export function measureTokens(text: string): number {
  try {
    return countTokens(text);
  } catch {
    return countPlainTokens(text, AS_PLAIN_TEXT);
  }
}

/**
 * measureTokens(text) if it is at most `limit`, else false — found without tokenizing past the
 * limit, so that asking whether a megabyte-long sentence or an unspaced blob fits costs about as
 * much as tokenizing one chunk (linear: long runs are counted in pieces, as measureTokens does).
 */
export function tokensWithin(text: string, limit: number): number | false {
  return countTokensWithin(text, limit);
}

export interface MeasuredRange extends TextRange {
  tokens: number;
}

/*
 * gpt-tokenizer keeps an LRU cache of 100k merged pre-tokens in a Map, evicting with
 * `keys().next()`. V8 keeps deleted Map entries until a rehash, so once text with many distinct
 * pre-tokens (a base64 blob, hex, unspaced CJK) fills it, every miss walks the tombstones: a 1 MB
 * blob took ~19 s instead of ~1.5 s, and slowed every later count in the process. Clearing the
 * cache every so many pieces of such a run keeps it from filling; the cost is re-merging common
 * words afterwards, which is cheap.
 */
const PIECES_BETWEEN_CACHE_CLEARS = 32;

/**
 * Cuts [start, end) — one whitespace-free run, such as a base64 blob or a line of CJK text —
 * into pieces of at most `limit` tokens. A candidate cut comes from encoding a window once and
 * decoding its first `limit` tokens, then moves back to a character boundary and is verified with
 * measureTokens, shrinking until it fits: BPE on a truncated piece can differ from the same
 * characters inside a longer one. (A binary search over prefixes would re-tokenize each piece a
 * dozen times.)
 */
export function splitByTokens(text: string, start: number, end: number, limit: number): MeasuredRange[] {
  const pieces: MeasuredRange[] = [];
  let charsPerToken = 4;
  let pos = start;
  while (pos < end) {
    const cut = nextCut(text, pos, end, limit, charsPerToken);
    pieces.push({ start: pos, end: cut.end, tokens: cut.tokens });
    charsPerToken = Math.max(1, (cut.end - pos) / Math.max(1, cut.tokens));
    pos = cut.end;
    if (pieces.length % PIECES_BETWEEN_CACHE_CLEARS === 0) clearMergeCache();
  }
  if (pieces.length >= PIECES_BETWEEN_CACHE_CLEARS) clearMergeCache();
  return pieces;
}

function nextCut(text: string, pos: number, end: number, limit: number, charsPerToken: number): { end: number; tokens: number } {
  let window = Math.ceil(limit * charsPerToken * 1.25) + 16;
  for (;;) {
    const windowEnd = backToBoundary(text, pos, Math.min(end, pos + window));
    const tokens = encode(text.slice(pos, windowEnd), AS_PLAIN_TEXT);
    if (tokens.length > limit) return shrinkToFit(text, pos, prefixEnd(text, pos, windowEnd, tokens, limit), limit);
    if (windowEnd === end) return shrinkToFit(text, pos, end, limit);
    window *= 2;
  }
}

/** End of the first `limit` tokens of [pos, windowEnd), read off the decoded token prefix. */
function prefixEnd(text: string, pos: number, windowEnd: number, tokens: number[], limit: number): number {
  let decoded = decode(tokens.slice(0, limit));
  // A token boundary inside a multi-byte character decodes to U+FFFD; that character is not whole.
  while (decoded.endsWith('\ufffd') && text.charCodeAt(pos + decoded.length - 1) !== 0xfffd) {
    decoded = decoded.slice(0, -1);
  }
  return Math.min(windowEnd, pos + Math.max(1, decoded.length));
}

function shrinkToFit(text: string, pos: number, end: number, limit: number): { end: number; tokens: number } {
  let cut = backToBoundary(text, pos, end);
  for (;;) {
    const tokens = measureTokens(text.slice(pos, cut));
    if (tokens <= limit) return { end: cut, tokens };
    let next = backToBoundary(text, pos, pos + Math.floor((cut - pos) * 0.9));
    if (next >= cut) next = backToBoundary(text, pos, cut - 1);
    // One code point is at most 4 byte-level tokens, and callers keep `limit` well above that.
    if (next >= cut) throw new Error(`chunker: cannot fit one character into ${limit} tokens`);
    cut = next;
  }
}

/**
 * The nearest cut at or before `cut` (and after `pos`) that keeps user-perceived characters whole;
 * if there is none (a single "character" carrying hundreds of combining marks), the nearest that
 * at least keeps code points whole.
 */
function backToBoundary(text: string, pos: number, cut: number): number {
  let safe = cut;
  while (safe > pos && !isSafeCut(text, safe)) safe--;
  if (safe > pos) return safe;
  let whole = Math.max(cut, pos + 1);
  if (splitsCodePoint(text, whole)) whole = whole > pos + 1 ? whole - 1 : whole + 1;
  return whole;
}
