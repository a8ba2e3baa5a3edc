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

/** Words as a name is written: letters and digits, with inner apostrophes, dots and hyphens. */
const WORD = /[\p{L}\p{N}](?:[\p{L}\p{N}'’.-]*[\p{L}\p{N}])?/gu;
const CAPITALISED = /^[\p{Lu}\p{N}]/u;

/**
 * The word runs of a passage that look like names: 1 to MAX_NAME_WORDS words whose first and
 * last words are capitalised ("Maximum Overdrive", "Bank of England"), normalised, at most
 * MAX_CANDIDATES. Matched against the graph's entity names, they link a passage to the
 * entities it names even where extraction missed the mention. Linear in the text's length.
 */
export function namedInPassage(text: string): string[] {
  const words = text.match(WORD) ?? [];
  // Each word normalised once: a run's name is its words' normal forms joined by spaces, which
  // is what normalizeEntityName makes of the run (a word holds no space, and the marks and
  // punctuation it drops never span two words).
  const normal = words.map((word) => normalizeEntityName(word));
  const capitalised = words.map((word) => CAPITALISED.test(word));
  const names = new Set<string>();
  for (let i = 0; i < words.length && names.size < MAX_CANDIDATES; i++) {
    if (!capitalised[i]) continue;
    let name = '';
    for (let n = 1; n <= MAX_NAME_WORDS && i + n <= words.length && names.size < MAX_CANDIDATES; n++) {
      const word = normal[i + n - 1];
      name = name && word ? `${name} ${word}` : name || word;
      if (capitalised[i + n - 1] && name) names.add(name);
    }
  }
  return [...names];
}
