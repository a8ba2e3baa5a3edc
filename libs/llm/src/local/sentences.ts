import { compromise } from './compromise';

/**
 * Sentence splitting and whitespace normalisation shared by the local extractor, summarizer and
 * answerer. Paragraphs and list items are cut on line structure first (text pasted from
 * documents is often hard-wrapped, and list items have no full stop), then each block is split
 * into sentences by compromise's tokenizer, which knows abbreviations ("Dr. Chen", "U.S.").
 */

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const LIST_MARKER = /^\s*(?:[-*•·‣◦▪]|\d{1,3}[.)]|[a-z][.)]|#{1,6})\s+/u;
const TERMINAL = /[.!?:;)"'”’]\s*$/u;

/**
 * Blocks of running text: cut at blank lines, before list items and headings, and after a line
 * that ends a sentence or is too short to be a wrapped line. Other line breaks are wrapping.
 */
export function splitParagraphs(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: string[] = [];
  let current: string[] = [];
  const flush = () => {
    const block = normalizeWhitespace(current.join(' '));
    if (block) blocks.push(block);
    current = [];
  };
  lines.forEach((line, i) => {
    if (!line.trim()) return flush();
    if (LIST_MARKER.test(line)) flush();
    current.push(line.replace(LIST_MARKER, ''));
    const next = lines[i + 1];
    const wrapped = line.trim().length >= 40 && !TERMINAL.test(line);
    if (next === undefined || !wrapped || LIST_MARKER.test(next)) flush();
  });
  flush();
  return blocks;
}

export interface SplitOptions {
  /** Longer sentences are cut at word boundaries into pieces of at most this many characters. */
  maxChars?: number;
}

export function splitSentences(text: string, options: SplitOptions = {}): string[] {
  const out: string[] = [];
  for (const block of splitParagraphs(text)) {
    const sentences = (compromise().tokenize(block).json() as Array<{ text: string }>).map((s) => normalizeWhitespace(s.text));
    for (const sentence of sentences) {
      if (!sentence) continue;
      if (options.maxChars && sentence.length > options.maxChars) out.push(...cutAtWords(sentence, options.maxChars));
      else out.push(sentence);
    }
  }
  return out;
}

/** Cuts text into pieces of at most `max` characters at spaces (a word longer than that is cut). */
export function cutAtWords(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut <= 0) cut = max;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** Shortens text to at most `max` characters at a word boundary, marking the cut with "…". */
export function truncateText(text: string, max: number): string {
  const clean = normalizeWhitespace(text);
  if (clean.length <= max) return clean;
  const head = clean.slice(0, Math.max(1, max - 1));
  const space = clean[head.length] === ' ' ? head.length : head.lastIndexOf(' ');
  return `${(space > max / 2 ? head.slice(0, space) : head).replace(/[\s,;:.-]+$/u, '')}…`;
}
