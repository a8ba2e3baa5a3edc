import { STOPWORDS } from './lexicon';
import { hashTokens, lightStem } from './hashing.features';
import { normalizeWhitespace, splitSentences, truncateText } from './sentences';

/**
 * Extractive summaries: the text's most central sentences, kept in their original order.
 *
 * A sentence's score is how much of the text's vocabulary it carries: the sum, over its
 * distinct content words (stemmed), of how often each occurs in the whole text, divided by the
 * square root of its length (so long sentences do not win by length alone). The first
 * sentence gets a small bonus (texts tend to open with their topic); fragments of fewer than
 * four words get a penalty; a sentence that mostly repeats one already chosen is skipped.
 * Sentences are taken best first while they fit `maxChars`.
 */

export interface SummaryOptions {
  /** Default 3. */
  maxSentences?: number;
  /** Default 600. */
  maxChars?: number;
}

const DEFAULT_MAX_SENTENCES = 3;
const DEFAULT_MAX_CHARS = 600;
const FIRST_SENTENCE_BONUS = 1.15;
const FRAGMENT_PENALTY = 0.5;
const DUPLICATE_OVERLAP = 0.8;

export function summarizeLocally(text: string, options: SummaryOptions = {}): string {
  const maxSentences = Math.max(1, Math.floor(options.maxSentences ?? DEFAULT_MAX_SENTENCES));
  const maxChars = Math.max(1, Math.floor(options.maxChars ?? DEFAULT_MAX_CHARS));
  const sentences = splitSentences(text);
  if (sentences.length === 0) return '';
  const whole = sentences.join(' ');
  if (sentences.length <= maxSentences && whole.length <= maxChars) return whole;

  const words = sentences.map(contentWords);
  const frequency = new Map<string, number>();
  for (const list of words) for (const w of list) frequency.set(w, (frequency.get(w) ?? 0) + 1);

  const scored = sentences.map((sentence, index) => {
    const distinct = new Set(words[index]);
    let score = 0;
    for (const w of distinct) score += frequency.get(w) ?? 0;
    score /= Math.sqrt(distinct.size + 1);
    if (index === 0) score *= FIRST_SENTENCE_BONUS;
    if (words[index].length < 4) score *= FRAGMENT_PENALTY;
    return { sentence, index, score, distinct };
  });
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);

  const chosen: typeof scored = [];
  let length = 0;
  for (const candidate of ranked) {
    if (chosen.length >= maxSentences) break;
    if (chosen.some((c) => overlap(c.distinct, candidate.distinct) >= DUPLICATE_OVERLAP)) continue;
    const added = candidate.sentence.length + (chosen.length ? 1 : 0);
    if (length + added > maxChars) continue;
    chosen.push(candidate);
    length += added;
  }
  if (chosen.length === 0) return truncateText(ranked[0].sentence, maxChars);
  return normalizeWhitespace(
    chosen
      .sort((a, b) => a.index - b.index)
      .map((c) => c.sentence)
      .join(' '),
  );
}

function contentWords(sentence: string): string[] {
  return hashTokens(sentence)
    .filter((t) => t.length > 1 && !STOPWORDS.has(t))
    .map(lightStem);
}

/** Share of the smaller set's words that the other set also has. */
function overlap(a: Set<string>, b: Set<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 1;
  let shared = 0;
  for (const w of small) if (large.has(w)) shared++;
  return shared / small.size;
}
