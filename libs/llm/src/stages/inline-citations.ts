/**
 * The source ids a prose answer cites with inline markers: `[1]`, `[2, kg]`, `[source 3]`
 * (the way the prompt renders sources). Each id once, in order of first use.
 */
const MARKER = /\[((?:source\s+)?[\w-]{1,40}(?:\s*,\s*(?:source\s+)?[\w-]{1,40})*)\]/gi;

export function citedIds(text: string): string[] {
  const ids = new Set<string>();
  for (const marker of text.matchAll(MARKER)) {
    for (const part of marker[1].split(',')) ids.add(part.trim().replace(/^source\s+/i, ''));
  }
  return [...ids];
}

/** A finished answer's text in pieces of a few words each, for streaming an answer written all at once. */
export function textPieces(text: string, wordsPerPiece = 4): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece) pieces.push(words.slice(i, i + wordsPerPiece).join(''));
  return pieces.length > 0 || text === '' ? pieces : [text];
}
