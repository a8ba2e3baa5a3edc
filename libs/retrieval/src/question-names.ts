import { normalizeEntityName } from '@loci/common';

/** Longest word sequence of a question tried as an entity name. */
export const MAX_NAME_WORDS = 6;

/** At most this many candidate names a question (a long question is mostly not names). */
const MAX_CANDIDATES = 400;

/**
 * The word sequences of a question that could be an entity's name, normalised as entity names
 * are (normalizeEntityName): every run of 1 to MAX_NAME_WORDS consecutive words, longest
 * first. Matching them exactly against `entities.normalized_name` finds the entities a question
 * names ("Were Scott Derrickson and Ed Wood…" → "scott derrickson", "ed wood") without asking
 * any model. Linear in the question's length, and bounded.
 */
export function candidateNames(question: string): string[] {
  const words = normalizeEntityName(question).split(' ').filter(Boolean);
  const names = new Set<string>();
  for (let n = Math.min(MAX_NAME_WORDS, words.length); n >= 1; n--) {
    for (let i = 0; i + n <= words.length && names.size < MAX_CANDIDATES; i++) names.add(words.slice(i, i + n).join(' '));
  }
  return [...names];
}
