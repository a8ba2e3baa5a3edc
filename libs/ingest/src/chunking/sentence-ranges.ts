// The project's sentence splitter (compromise, with line-structure rules for lists, headings and
// hard-wrapped lines) is reused so that chunk edges fall where the local summarizer and extractor
// see sentence edges. It is not exported from `@loci/llm`'s public index, hence the path.
import { splitSentences } from '../../../llm/src/local/sentences';

/** A half-open range of UTF-16 offsets into the original text. */
export interface TextRange {
  start: number;
  end: number;
}

/*
 * splitSentences returns normalised strings (whitespace collapsed, list markers and heading hashes
 * stripped), not offsets. They are mapped back onto the original by matching their non-whitespace
 * characters, in order, against the original's. A character the splitter dropped (a list marker)
 * is skipped over; a character it changed is not found within a short look-ahead and is ignored,
 * so a surprise in the splitter costs at most a slightly misplaced sentence edge, never content.
 */
const LOOK_AHEAD = 64;
const WHITESPACE = /\s/;

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && WHITESPACE.test(String.fromCharCode(code)));
}

/**
 * Sentence ranges covering all of `text`: consecutive ranges touch (whatever lies between two
 * sentences, such as a stripped list marker, belongs to the next one) and each is then trimmed of
 * whitespace. Whitespace-only ranges are left out.
 */
export function sentenceRanges(text: string): TextRange[] {
  const cuts: number[] = [];
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    let last = -1;
    for (let k = 0; k < sentence.length; k++) {
      const code = sentence.charCodeAt(k);
      if (isSpace(code)) continue;
      while (cursor < text.length && isSpace(text.charCodeAt(cursor))) cursor++;
      const found = findAhead(text, cursor, code);
      if (found < 0) continue;
      last = found;
      cursor = found + 1;
    }
    if (last >= 0) cuts.push(safeCut(text, last + 1));
  }
  cuts.push(text.length);

  const ranges: TextRange[] = [];
  let from = 0;
  for (const cut of cuts) {
    if (cut <= from) continue;
    const range = trimRange(text, from, cut);
    if (range) ranges.push(range);
    from = cut;
  }
  return ranges;
}

/** Position of `code` at or after `from`, looking past at most LOOK_AHEAD characters; -1 if absent. */
function findAhead(text: string, from: number, code: number): number {
  const limit = Math.min(text.length, from + LOOK_AHEAD);
  for (let i = from; i < limit; i++) if (text.charCodeAt(i) === code) return i;
  return -1;
}

/** The range without whitespace at its edges, or null if nothing else is in it. */
export function trimRange(text: string, start: number, end: number): TextRange | null {
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return end > start ? { start, end } : null;
}

/** Ranges of the whitespace-free runs ("words") inside [start, end). */
export function wordRanges(text: string, start: number, end: number): TextRange[] {
  const words: TextRange[] = [];
  let i = start;
  while (i < end) {
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    const wordStart = i;
    while (i < end && !isSpace(text.charCodeAt(i))) i++;
    if (i > wordStart) words.push({ start: wordStart, end: i });
  }
  return words;
}

// Characters that continue the one before them: combining marks, zero-width joiner, variation
// selectors, emoji skin-tone modifiers and tag characters (subdivision flags).
// eslint-disable-next-line no-misleading-character-class -- each of these code points on its own is what is matched
const EXTENDER = /^[\p{M}\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]/u;

/**
 * Whether a cut before index `i` keeps every user-perceived character whole: not between the two
 * halves of a surrogate pair, not before a combining mark or modifier, not after a joiner. Cheaper
 * than a grapheme segmenter and enough for the places text gets cut (a regional-indicator flag
 * pair can still be separated; it degrades to two letters, losing nothing).
 */
export function isSafeCut(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return true;
  const code = text.charCodeAt(i);
  if (code >= 0xdc00 && code <= 0xdfff) return false;
  if (text.charCodeAt(i - 1) === 0x200d) return false;
  if (code < 0x300) return true;
  return !EXTENDER.test(text.slice(i, i + 2));
}

/** Whether a cut before index `i` splits a surrogate pair (the one cut never allowed). */
export function splitsCodePoint(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const code = text.charCodeAt(i);
  const prev = text.charCodeAt(i - 1);
  return code >= 0xdc00 && code <= 0xdfff && prev >= 0xd800 && prev <= 0xdbff;
}

/** The nearest safe cut at or after `i`. */
function safeCut(text: string, i: number): number {
  while (i < text.length && !isSafeCut(text, i)) i++;
  return i;
}
