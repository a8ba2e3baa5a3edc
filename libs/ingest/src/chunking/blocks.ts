import { TextRange, trimRange } from './sentence-ranges';

/**
 * How strong the edge before a piece of text is. The chunker ends a chunk at the strongest edge
 * that fits: between conversation turns, then between paragraphs, then between sentences, and
 * only inside a sentence (at spaces) when a sentence alone is longer than a chunk.
 */
export const EDGE = { word: 0, sentence: 1, paragraph: 2, turn: 3 } as const;

/** A range of the text and the strength of the edge in front of it. */
export interface Block extends TextRange {
  edge: number;
}

// A blank line: two line breaks with only spaces or tabs (or a CR) between them.
const BLANK_LINE = /\n[^\S\n]*\n/g;

/** The paragraphs of [start, end): the text between blank lines, trimmed, empty ones left out. */
export function paragraphRanges(text: string, start: number, end: number): TextRange[] {
  const out: TextRange[] = [];
  const slice = text.slice(start, end);
  let from = 0;
  for (const match of slice.matchAll(BLANK_LINE)) {
    const range = trimRange(text, start + from, start + match.index);
    if (range) out.push(range);
    from = match.index + match[0].length;
  }
  const last = trimRange(text, start + from, end);
  if (last) out.push(last);
  return out;
}

/*
 * A line that opens a conversation turn: a speaker's name of one to three words and a colon,
 * optionally after a time stamp, as chat exports and transcripts write them:
 *   "Alice: …", "[12:01] Bob: …", "12:01 PM - Dr. Chen: …", "User: …", "**Assistant:** …".
 * The colon must be followed by whitespace, so "http://…" and "12:30" do not open one.
 */
const TURN_OPENER =
  /^[^\S\n]*(?:\[[^\]\n]{1,40}\][^\S\n]*|\(?\d{1,2}:\d{2}(?::\d{2})?(?:[^\S\n]*[AaPp]\.?[Mm]\.?)?\)?[^\S\n]*[-–—]?[^\S\n]*)?(?:\*\*|__)?(\p{L}[\p{L}\p{N}.'’_-]*(?:[^\S\n][\p{L}\p{N}.'’_-]+){0,2})[^\S\n]*:(?:\*\*|__)?(?=\s|$)/u;

/**
 * Where the conversation turns of `text` begin, or null when it is not a conversation. A text is
 * one when at least two lines open a turn and at least two different speakers talk: a single
 * "Note: …" line does not make a document a transcript. (A key–value list such as "Name: …" /
 * "City: …" also passes; keeping its lines whole is right for it too.)
 */
export function turnStarts(text: string): number[] | null {
  const starts: number[] = [];
  const speakers = new Set<string>();
  for (let lineStart = 0; lineStart < text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    // A speaker label is near the line's start; looking at a bounded prefix keeps this linear.
    const opener = TURN_OPENER.exec(text.slice(lineStart, Math.min(lineEnd, lineStart + 120)));
    if (opener) {
      starts.push(lineStart);
      speakers.add(opener[1].toLowerCase());
    }
    lineStart = lineEnd + 1;
  }
  return starts.length >= 2 && speakers.size >= 2 ? starts : null;
}

/**
 * The text's top-level blocks, in order: its turns when it is a conversation (anything before
 * the first turn as paragraphs), else its paragraphs.
 */
export function topLevelBlocks(text: string): Array<Block & { turn: boolean }> {
  const turns = turnStarts(text);
  if (!turns) return paragraphRanges(text, 0, text.length).map((r) => ({ ...r, edge: EDGE.paragraph, turn: false }));
  const blocks: Array<Block & { turn: boolean }> = paragraphRanges(text, 0, turns[0]).map((r) => ({ ...r, edge: EDGE.paragraph, turn: false }));
  turns.forEach((start, k) => {
    const range = trimRange(text, start, turns[k + 1] ?? text.length);
    if (range) blocks.push({ ...range, edge: EDGE.turn, turn: true });
  });
  return blocks;
}
