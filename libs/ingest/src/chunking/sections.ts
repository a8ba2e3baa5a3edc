import { isSafeCut, TextRange } from './sentence-ranges';

/**
 * Characters the chunker works on at once. What it builds for a long block (sentences found by
 * the NLP splitter, a unit per sentence) takes up to a hundred times the text in memory: 1,000,000
 * short lines without a blank line (3 MB, one "paragraph") grew past 400 MB and killed the CPU
 * thread every attempt. A section of this size of such lines is chunked within a 192 MB heap, and
 * a text under it (a few hundred pages) is chunked exactly as a whole.
 */
export const SECTION_CHARS = 1_000_000;

/**
 * Consecutive ranges covering `text`, each at most `maxChars` long, cut at the last blank line in
 * the second half of the allowance, else the last line break there, else the last sentence end
 * (., ! or ? before whitespace), else the last whitespace, else anywhere a character stays whole. A text within `maxChars` is one section.
 */
export function sectionRanges(text: string, maxChars: number = SECTION_CHARS): TextRange[] {
  const sections: TextRange[] = [];
  let start = 0;
  while (text.length - start > maxChars) {
    const end = cutBefore(text, start, start + maxChars);
    sections.push({ start, end });
    start = end;
  }
  sections.push({ start, end: text.length });
  return sections;
}

function cutBefore(text: string, start: number, bound: number): number {
  const floor = start + Math.floor((bound - start) / 2);
  const blankLine = text.lastIndexOf('\n\n', bound - 2);
  if (blankLine >= floor) return blankLine + 1;
  const lineBreak = text.lastIndexOf('\n', bound - 1);
  if (lineBreak >= floor) return lineBreak + 1;
  for (let i = bound - 1; i > floor; i--) if (/\s/.test(text[i]) && /[.!?]/.test(text[i - 1])) return i + 1;
  for (let i = bound - 1; i >= floor; i--) if (/\s/.test(text[i])) return i + 1;
  let cut = bound;
  while (cut > floor && !isSafeCut(text, cut)) cut--;
  return cut;
}
