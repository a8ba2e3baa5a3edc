import { createHash } from 'node:crypto';
import { countTokens } from '../../libs/llm/src/metering/token-counter';
import { cutToTokens, MIN_CHUNK_CUT_TOKENS } from '../../libs/retrieval/src/context-budget';
import { Passage } from './corpus';

/**
 * The multi-passage variant of the eval (`--docs-of N`): passages are concatenated N to a
 * document, so that chunking decides what a retrieved unit is. In the one-passage-per-document
 * eval every passage is exactly one chunk and the chunk size never matters.
 */

/** Where one passage lies in its document: [start, end) in UTF-16 offsets, title line included. */
export interface PassageSpan {
  title: string;
  start: number;
  end: number;
}

export interface BundleDocument {
  name: string;
  text: string;
  passages: PassageSpan[];
}

/** A seeded Park–Miller generator: the same order on every machine and run. */
function seededRandom(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 16807) % 2147483647) / 2147483647;
}

/**
 * The passages in a fixed pseudo-random order (Fisher–Yates with a seeded generator, so that a
 * document holds unrelated passages, not the corpus file's neighbours), N to a document. Each
 * passage is its title on a line and its text; passages are separated by a blank line, as
 * paragraphs of a document are. The name says nothing about the content (Loci indexes a chunk
 * under its document's name too).
 */
export function bundlePassages(passages: Passage[], perDocument: number, seed = 2026): BundleDocument[] {
  const order = passages.map((_, i) => i);
  const random = seededRandom(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const documents: BundleDocument[] = [];
  for (let from = 0; from < order.length; from += perDocument) {
    let text = '';
    const spans: PassageSpan[] = [];
    for (const index of order.slice(from, from + perDocument)) {
      const passage = passages[index];
      if (text) text += '\n\n';
      const start = text.length;
      text += `${passage.title}\n${passage.text.trim()}`;
      spans.push({ title: passage.title, start, end: text.length });
    }
    documents.push({ name: `bundle-${String(documents.length + 1).padStart(3, '0')}`, text, passages: spans });
  }
  return documents;
}

/** Identifies what is ingested: the documents' names and texts, in order. */
export function bundlesHash(documents: BundleDocument[]): string {
  const hash = createHash('sha256');
  for (const d of documents) hash.update(d.name).update('\0').update(d.text).update('\0');
  return hash.digest('hex');
}

/**
 * The passages a span of a document holds: those of which it holds at least half. A chunk that
 * holds only a passage's title line or its last sentence does not hold it; two chunks that each
 * hold half of it do, together (see contextTitles).
 */
export function passagesHeld(document: BundleDocument, start: number, end: number): string[] {
  return contextTitles([{ document, start, end }]);
}

/** A stretch of a document put in front of a model: a chunk, or the part of one a budget left room for. */
export interface DocumentSpan {
  document: BundleDocument;
  start: number;
  end: number;
}

/**
 * The passages a context holds: those of which at least half the text is in it, counting every
 * span of the context together (a passage cut across two chunks is held when both are there).
 * Recall is then read on text, not on units: what a model would see of each gold passage.
 */
export function contextTitles(spans: DocumentSpan[]): string[] {
  const byDocument = new Map<BundleDocument, Array<[number, number]>>();
  for (const s of spans) {
    const list = byDocument.get(s.document) ?? [];
    list.push([s.start, s.end]);
    byDocument.set(s.document, list);
  }
  const titles: string[] = [];
  for (const [document, ranges] of byDocument) {
    const merged = mergeRanges(ranges);
    for (const p of document.passages) {
      let covered = 0;
      for (const [start, end] of merged) covered += Math.max(0, Math.min(end, p.end) - Math.max(start, p.start));
      if (covered * 2 >= p.end - p.start) titles.push(p.title);
    }
  }
  return titles;
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [start, end] of sorted) {
    const last = out[out.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** One retrieved unit, as the scorer sees it: where it lies and the passages it alone holds. */
export interface HeldChunk extends DocumentSpan {
  text: string;
  titles: string[];
}

/** A chunk at `start` of its document (its text is `document.text.slice(start, start + text.length)`). */
export function heldChunk(document: BundleDocument, start: number, text: string): HeldChunk {
  return { document, start, end: start + text.length, text, titles: passagesHeld(document, start, start + text.length) };
}

/**
 * A returned chunk located in its document by its text (a chunk's text is an exact slice of the
 * document's; the API does not return offsets). Null when it is not found, which should not happen.
 */
export function locateChunk(document: BundleDocument | undefined, text: string): HeldChunk | null {
  const start = document ? document.text.indexOf(text) : -1;
  return start < 0 ? null : heldChunk(document!, start, text);
}

/**
 * The passages a context of at most `budget` tokens holds, filled as Loci fills one
 * (context-budget.ts's fitChunks): chunks in rank order while they fit, then the next one cut to
 * what is left if at least MIN_CHUNK_CUT_TOKENS are. The budget is what is held fixed when chunk
 * sizes are compared: bigger chunks hold more passages each, and fewer of them fit.
 */
export function titlesWithinTokens(chunks: HeldChunk[], budget: number): string[] {
  const spans: DocumentSpan[] = [];
  let used = 0;
  for (const chunk of chunks) {
    const tokens = countTokens(chunk.text);
    if (used + tokens <= budget) {
      used += tokens;
      spans.push(chunk);
      continue;
    }
    const left = budget - used;
    if (left >= MIN_CHUNK_CUT_TOKENS) {
      const prefix = cutToTokens(chunk.text, left);
      if (prefix.length > 0) spans.push({ document: chunk.document, start: chunk.start, end: chunk.start + prefix.length });
    }
    break;
  }
  return contextTitles(spans);
}

/** The passages the first k chunks hold. */
export function titlesWithinChunks(chunks: HeldChunk[], k: number): string[] {
  return contextTitles(chunks.slice(0, k));
}
