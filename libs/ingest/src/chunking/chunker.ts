import { EDGE, paragraphRanges, topLevelBlocks } from './blocks';
import { SECTION_CHARS, sectionRanges } from './sections';
import { sentenceRanges, TextRange, trimRange, wordRanges } from './sentence-ranges';
import { MeasuredRange, measureTokens, splitByTokens, tokensWithin } from './tokens';

export interface TextChunk {
  /** Position of the chunk in its text, from 0. */
  index: number;
  /** Exactly `original.slice(startOffset, endOffset)`: only whitespace at the edges is dropped. */
  text: string;
  /** o200k tokens of `text`; never more than the maxTokens it was cut for. */
  tokenCount: number;
  /** UTF-16 offsets (JavaScript string indices) into the original text, end exclusive. */
  startOffset: number;
  endOffset: number;
}

export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
}

export const DEFAULT_CHUNK_MAX_TOKENS = 300;
export const DEFAULT_CHUNK_OVERLAP_TOKENS = 25;
/** One code point can take 4 byte-level tokens; below this, cutting stops making sense. */
export const MIN_CHUNK_MAX_TOKENS = 16;

interface ResolvedOptions {
  maxTokens: number;
  overlapTokens: number;
}

function resolveOptions(options: ChunkOptions = {}): ResolvedOptions {
  const maxTokens = options.maxTokens ?? DEFAULT_CHUNK_MAX_TOKENS;
  const overlapTokens = options.overlapTokens ?? DEFAULT_CHUNK_OVERLAP_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < MIN_CHUNK_MAX_TOKENS) {
    throw new RangeError(`maxTokens must be an integer of at least ${MIN_CHUNK_MAX_TOKENS}, got ${maxTokens}`);
  }
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0) {
    throw new RangeError(`overlapTokens must be a non-negative integer, got ${overlapTokens}`);
  }
  // The settings bound the two values separately, so a small chunk size with a large overlap is
  // possible there; an overlap above half a chunk would mostly repeat text, so it is capped.
  return { maxTokens, overlapTokens: Math.min(overlapTokens, Math.floor(maxTokens / 2)) };
}

/** True when `text` does not fit in one chunk of `maxTokens` (whitespace at its edges aside). */
export function needsChunking(text: string, maxTokens: number = DEFAULT_CHUNK_MAX_TOKENS): boolean {
  const { maxTokens: max } = resolveOptions({ maxTokens, overlapTokens: 0 });
  const all = trimRange(text, 0, text.length);
  return all !== null && tokensWithin(text.slice(all.start, all.end), max) === false;
}

/**
 * Cuts text into chunks of at most `maxTokens` tokens for embedding and extraction. Chunks end
 * between conversation turns (a text whose lines open with "Alice:", "[12:01] Bob:", "User:"…),
 * else between paragraphs (blank lines), else between sentences: whole turns and paragraphs are
 * packed while they fit, and one longer than a chunk is cut into paragraphs, then sentences; a
 * sentence longer than a chunk is cut at spaces, and a whitespace-free run longer than that (a
 * base64 blob, unspaced CJK) by tokens at character boundaries. A chunk that ends inside a
 * paragraph is followed by one that starts with about `overlapTokens` of its end (whole sentences
 * when they fit, else trailing words), so a fact that straddles the cut is still whole in one of
 * them. The same input always gives the same chunks.
 */
export function chunkText(text: string, options?: ChunkOptions): TextChunk[] {
  if (text.length <= SECTION_CHARS) return chunkSection(text, options);
  // A long text is chunked a section at a time (in bounded memory): a chunk never spans a section
  // edge, which falls between paragraphs or lines wherever the text has them.
  const chunks: TextChunk[] = [];
  for (const section of sectionRanges(text)) {
    for (const chunk of chunkSection(text.slice(section.start, section.end), options)) {
      chunks.push({ ...chunk, index: chunks.length, startOffset: chunk.startOffset + section.start, endOffset: chunk.endOffset + section.start });
    }
  }
  return chunks;
}

function chunkSection(text: string, options?: ChunkOptions): TextChunk[] {
  const { maxTokens, overlapTokens } = resolveOptions(options);
  const all = trimRange(text, 0, text.length);
  if (!all) return [];

  const wholeTokens = tokensWithin(text.slice(all.start, all.end), maxTokens);
  const ranges =
    wholeTokens !== false
      ? [{ ...all, tokens: wholeTokens }]
      : packChunks(text, buildUnits(text, maxTokens, maxTokens - overlapTokens), maxTokens, overlapTokens);

  return ranges.map((range, index) => {
    const body = text.slice(range.start, range.end);
    // Every count above was measured on exactly this slice. The check is cheap insurance for the
    // contract the rest of the pipeline relies on (embedding inputs, context budgets): a
    // violation is a bug here and must not pass silently.
    if (range.tokens > maxTokens || body.length === 0 || body.trim() !== body) {
      throw new Error(`chunker invariant broken at chunk ${index}: ${range.tokens} tokens (max ${maxTokens}) or bad edges`);
    }
    return { index, text: body, tokenCount: range.tokens, startOffset: range.start, endOffset: range.end };
  });
}

/**
 * A piece of text the packer places whole: a turn, a paragraph, a sentence, or a part of an
 * over-long sentence. `tokens` counts the trimmed piece; `gap` estimates what the whitespace
 * before it adds when it follows another unit in the same chunk (a space merges into the next
 * word's token; line breaks are tokens of their own); `edge` is the strength of the edge in
 * front of it (EDGE).
 */
interface Unit extends MeasuredRange {
  gap: number;
  edge: number;
}

type LeveledRange = MeasuredRange & { edge: number };

function withGaps(text: string, ranges: LeveledRange[]): Unit[] {
  return ranges.map((range, k) => {
    const gapText = k === 0 ? '' : text.slice(ranges[k - 1].end, range.start);
    return { ...range, gap: /[\r\n]/.test(gapText) ? measureTokens(gapText) : 0 };
  });
}

/**
 * The text's units, coarsest first: a turn or paragraph that fits in a chunk is one unit; one
 * that does not is cut into its paragraphs (a turn), then sentences, and a sentence over
 * `maxTokens` into pieces of at most `pieceTokens`, which leaves room for the overlap in front of
 * each. Each part keeps the edge of the block it opens, so the packer knows where turns and
 * paragraphs begin. Only over-long blocks are split into sentences.
 */
function buildUnits(text: string, maxTokens: number, pieceTokens: number): Unit[] {
  const units: LeveledRange[] = [];
  const add = (range: TextRange, edge: number, parts: Array<'paragraphs' | 'sentences'>) => {
    const tokens = tokensWithin(text.slice(range.start, range.end), maxTokens);
    if (tokens !== false) {
      units.push({ ...range, tokens, edge });
      return;
    }
    const [split, ...rest] = parts;
    if (!split) {
      const pieces = splitSentence(text, range, pieceTokens);
      pieces.forEach((piece, k) => units.push({ ...piece, edge: k === 0 ? edge : EDGE.word }));
      return;
    }
    const inner = split === 'paragraphs' ? paragraphRanges(text, range.start, range.end) : sentencesWithin(text, range);
    const innerEdge = split === 'paragraphs' ? EDGE.paragraph : EDGE.sentence;
    inner.forEach((part, k) => add(part, k === 0 ? edge : innerEdge, rest));
  };
  for (const block of topLevelBlocks(text)) add(block, block.edge, block.turn ? ['paragraphs', 'sentences'] : ['sentences']);
  return withGaps(text, units);
}

/** Sentence ranges of one block, as offsets into the whole text. */
function sentencesWithin(text: string, range: TextRange): TextRange[] {
  return sentenceRanges(text.slice(range.start, range.end)).map((s) => ({ start: s.start + range.start, end: s.end + range.start }));
}

function splitSentence(text: string, sentence: TextRange, limit: number): MeasuredRange[] {
  const atoms: MeasuredRange[] = [];
  for (const word of wordRanges(text, sentence.start, sentence.end)) {
    const tokens = tokensWithin(text.slice(word.start, word.end), limit);
    if (tokens !== false) atoms.push({ ...word, tokens });
    else atoms.push(...splitByTokens(text, word.start, word.end, limit));
  }
  return pack(text, withGaps(text, atoms.map((atom) => ({ ...atom, edge: EDGE.word }))), limit);
}

/** Index one past the last unit that fits after units[i] (always taken), by the estimates. */
function extend(units: Unit[], i: number, used: number, limit: number): number {
  let estimate = used + units[i].tokens + (used > 0 ? units[i].gap : 0);
  let j = i + 1;
  while (j < units.length && estimate + units[j].gap + units[j].tokens <= limit) {
    estimate += units[j].gap + units[j].tokens;
    j++;
  }
  return j;
}

/** Greedy packing of consecutive units into ranges of at most `limit` tokens, no overlap. */
function pack(text: string, units: Unit[], limit: number): MeasuredRange[] {
  const out: MeasuredRange[] = [];
  for (let i = 0; i < units.length; ) {
    let j = extend(units, i, 0, limit);
    let tokens = j - 1 > i ? measureTokens(text.slice(units[i].start, units[j - 1].end)) : units[i].tokens;
    while (tokens > limit && j - 1 > i) {
      j--;
      tokens = j - 1 > i ? measureTokens(text.slice(units[i].start, units[j - 1].end)) : units[i].tokens;
    }
    out.push({ start: units[i].start, end: units[j - 1].end, tokens });
    i = j;
  }
  return out;
}

/**
 * Like `pack`, but each chunk ends at the strongest edge that fits (see `bestEnd`), and a chunk
 * that ends inside a paragraph or turn is followed by one that begins with an overlap taken from
 * its end. At a paragraph or turn edge there is no overlap: nothing said across it is cut.
 */
function packChunks(text: string, units: Unit[], maxTokens: number, overlapTokens: number): MeasuredRange[] {
  const chunks: MeasuredRange[] = [];
  let carry: MeasuredRange | null = null;
  for (let i = 0; i < units.length; ) {
    let start: number = carry ? carry.start : units[i].start;
    let j = bestEnd(units, i, extend(units, i, carry ? carry.tokens : 0, maxTokens), carry ? carry.tokens : 0, maxTokens);
    let tokens = measureTokens(text.slice(start, units[j - 1].end));
    // The estimates ignore how tokens merge across unit edges; the measured count decides.
    while (tokens > maxTokens) {
      if (j - 1 > i) {
        j--;
      } else if (carry) {
        carry = null;
        start = units[i].start;
      } else {
        break; // a lone unit always fits; the caller's invariant check reports it otherwise
      }
      tokens = measureTokens(text.slice(start, units[j - 1].end));
    }
    chunks.push({ start, end: units[j - 1].end, tokens });
    if (j === units.length) break;
    const budget = Math.min(overlapTokens, maxTokens - units[j].tokens - units[j].gap);
    carry = budget > 0 && units[j].edge < EDGE.paragraph ? trailingOverlap(text, units, start, i, j, budget) : null;
    i = j;
  }
  return chunks;
}

/*
 * A chunk that holds at least this share of its budget may end at a stronger edge rather than
 * fill up. Below it, a short heading or a one-line turn before an over-long block would become a
 * chunk of its own; the block has to be cut inside anyway, so it is cut where the chunk is full.
 */
const MIN_FILL_FOR_EARLY_END = 0.25;

/**
 * Where the chunk of units[i..j) should end, j being as far as it fits: at the strongest edge
 * among the units' starts in (i, j] (a turn over a paragraph over a sentence over a space),
 * the latest of equals, among the ends that fill the chunk to MIN_FILL_FOR_EARLY_END. A whole
 * turn or paragraph that fits is one unit, so no chunk ever ends inside one unless it alone is
 * longer than a chunk. Linear in the units looked at.
 */
function bestEnd(units: Unit[], i: number, j: number, used: number, limit: number): number {
  if (j >= units.length) return j;
  const floor = limit * MIN_FILL_FOR_EARLY_END;
  let best = j;
  let estimate = used;
  for (let k = i + 1; k <= j; k++) {
    estimate += units[k - 1].tokens + (k - 1 > i || used > 0 ? units[k - 1].gap : 0);
    if (estimate >= floor && units[k].edge > units[best].edge) best = k;
  }
  // Equal edges: the latest, which is `j` itself unless a stronger edge came before it.
  for (let k = j; k > best; k--) if (units[k].edge === units[best].edge) return k;
  return best;
}

/**
 * The longest tail of units[i..j) within `budget`: whole units if any fit, else trailing words.
 * It starts after `chunkStart` (a next chunk starting where this one did would only repeat it)
 * and within the paragraph or turn the chunk ends in.
 */
function trailingOverlap(text: string, units: Unit[], chunkStart: number, i: number, j: number, budget: number): MeasuredRange | null {
  const end = units[j - 1].end;
  let best: MeasuredRange | null = null;
  for (let k = j - 1; k >= i && units[k].start > chunkStart; k--) {
    const tokens = tokensWithin(text.slice(units[k].start, end), budget);
    if (tokens === false) break;
    best = { start: units[k].start, end, tokens };
    if (units[k].edge >= EDGE.paragraph) break;
  }
  return best ?? trailingWords(text, units[j - 1], budget);
}

function trailingWords(text: string, unit: TextRange, budget: number): MeasuredRange | null {
  const words = wordRanges(text, unit.start, unit.end);
  // Walk back from the last word by per-word estimates, never to the first word (the unit as a
  // whole either does not fit or starts where the chunk does), then confirm with a measurement,
  // dropping words from the front while it is over.
  let k = words.length;
  let estimate = 0;
  while (k > 1) {
    const tokens = measureTokens(text.slice(words[k - 1].start, words[k - 1].end));
    if (estimate + tokens > budget) break;
    estimate += tokens;
    k--;
  }
  for (; k < words.length; k++) {
    const tokens = tokensWithin(text.slice(words[k].start, unit.end), budget);
    if (tokens !== false) return { start: words[k].start, end: unit.end, tokens };
  }
  return null;
}
