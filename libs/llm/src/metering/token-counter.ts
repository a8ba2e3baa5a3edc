import { countTokens as countO200kTokens, decode, encode, isWithinTokenLimit } from 'gpt-tokenizer';
import type { ChatMessage } from '../model.types';

/**
 * Counts tokens before a call, so that a caller can reserve the worst-case cost. It uses
 * OpenAI's o200k_base encoding (shipped inside gpt-tokenizer, no download). Other providers'
 * tokenizers differ (Claude's runs up to ~20% longer on English prose), so estimates for
 * them are scaled by a safety factor: a reservation must not fall short of the real cost.
 */
const SAFETY_FACTOR: Record<string, number> = { openai: 1.0, anthropic: 1.25, local: 1.0 };
// Per-message framing tokens the providers add around each message (role markers etc.).
const MESSAGE_OVERHEAD_TOKENS = 4;

// User text may contain strings like `<|endoftext|>`; they are counted as the text they are.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/*
 * gpt-tokenizer merges one pre-token in time quadratic in its length, and a run of whitespace or
 * of letters is one pre-token: a 64 KiB question of spaces took ~6 s to count, a megabyte of
 * them would hold the event loop for minutes. Runs longer than this are counted in pieces of
 * this length; merges across a cut are lost, so the count of such text only rises (the safe
 * side for a reservation), and text without such runs is counted exactly as before.
 */
const MAX_RUN = 256;
const LONG_RUN = new RegExp(`\\s{${MAX_RUN + 1},}|\\S{${MAX_RUN + 1},}`, 'gu');

export function countTokens(text: string): number {
  let total = 0;
  for (const piece of countablePieces(text)) total += countO200kTokens(piece, PLAIN_TEXT);
  return total;
}

/**
 * countTokens(text) if it is at most `limit`, else false. It stops at the first piece that goes
 * over, so asking whether a megabyte fits costs about as much as counting `limit` tokens; the
 * tokenizer's own limit check on the whole text merges an unspaced run first, quadratically
 * (300k characters without a space held the event loop for 80 s).
 */
export function countTokensWithin(text: string, limit: number): number | false {
  let total = 0;
  for (const piece of countablePieces(text)) {
    const tokens = isWithinTokenLimit(piece, limit - total, PLAIN_TEXT);
    if (tokens === false) return false;
    total += tokens;
  }
  return total;
}

/**
 * The longest prefix of `text` that countTokens counts at most `maxTokens`, found with one
 * encoding of the text: the pieces before the one that crosses the limit whole, then that
 * piece's leading tokens decoded (byte-level BPE decodes a token prefix to a text prefix). A
 * binary search over prefix lengths counted the text ~11 times. Re-checked with countTokens,
 * since a cut piece can merge differently on its own; searched below it then, so the bound
 * always holds.
 */
export function prefixWithinTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  let used = 0;
  let offset = 0;
  for (const piece of countablePieces(text)) {
    const tokens = encode(piece, PLAIN_TEXT);
    if (used + tokens.length > maxTokens) {
      const prefix = text.slice(0, offset) + decodedPrefix(piece, tokens, maxTokens - used);
      if (countTokens(prefix) <= maxTokens) return prefix;
      // A cut piece merged differently on its own (rare): search the shorter prefixes instead, in
      // a bounded number of counts.
      return longestPrefixWithin(text, maxTokens, prefix.length);
    }
    used += tokens.length;
    offset += piece.length;
  }
  return text;
}

/** The longest prefix of `text` no longer than `limit` characters counted within `maxTokens`, by binary search. */
function longestPrefixWithin(text: string, maxTokens: number, limit: number): string {
  let low = 0;
  let high = limit;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countTokens(text.slice(0, middle)) <= maxTokens) low = middle;
    else high = middle - 1;
  }
  // Never end on half of a surrogate pair.
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[low - 1] ?? '') ? low - 1 : low);
}

/** The text of `piece`'s first `count` tokens, a prefix of it (a token ending inside a character is dropped). */
function decodedPrefix(piece: string, tokens: number[], count: number): string {
  for (let n = count; n > 0; n--) {
    const head = decode(tokens.slice(0, n));
    if (piece.startsWith(head)) return head;
  }
  return '';
}

/** `text` in the pieces it is counted in: runs longer than MAX_RUN cut every MAX_RUN characters. */
function* countablePieces(text: string): Generator<string> {
  let counted = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    if (run.index > counted) yield text.slice(counted, run.index);
    const end = run.index + run[0].length;
    for (let cut = run.index; cut < end; ) {
      let next = Math.min(end, cut + MAX_RUN);
      // Never split a surrogate pair.
      if (next < end && /[\uD800-\uDBFF]/.test(text[next - 1])) next--;
      yield text.slice(cut, next);
      cut = next;
    }
    counted = end;
  }
  if (counted < text.length) yield text.slice(counted);
}

/** Upper estimate of the input tokens of a chat call to `provider`. */
export function estimateChatInputTokens(provider: string, system: string, messages: ChatMessage[]): number {
  const raw =
    countTokens(system) + messages.reduce((sum, m) => sum + countTokens(m.content) + MESSAGE_OVERHEAD_TOKENS, 0);
  return Math.ceil(raw * (SAFETY_FACTOR[provider] ?? 1.25)) + MESSAGE_OVERHEAD_TOKENS;
}

/** Upper estimate of the input tokens of an embeddings request. */
export function estimateEmbeddingTokens(provider: string, texts: string[]): number {
  return Math.ceil(texts.reduce((sum, t) => sum + countTokens(t), 0) * (SAFETY_FACTOR[provider] ?? 1.25));
}
