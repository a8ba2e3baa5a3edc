// What a word looks like as written, before any tagger's reading of it.
import { PRONOUNS } from './lexicon';
import type { Token } from './nlp';

/**
 * A lowercase word is never a name, whatever the tagger guessed: compromise reads
 * "Where does Alice work?" as a person called "Alice work".
 */
export function looksCapitalized(word: string): boolean {
  return /^[\p{Lu}\p{N}]/u.test(word) || /^\p{Ll}+\p{Lu}/u.test(word);
}

/** "St." before a name: Saint, not Street ("St. Mary's", "St. Thomas' Hospital"). */
export function isSaint(token: Token | undefined): boolean {
  // "St. Mary's", and "St Mary's" as British English writes it (callers check a name follows).
  return token !== undefined && token.text === 'St' && /^\.?\s*$/.test(token.post);
}

/** A word written as a name could be: capitalized, and no pronoun ("I", "He" at a sentence's start). */
export function isNameWord(token: Token): boolean {
  return looksCapitalized(token.text) && !token.tags.has('Pronoun') && !PRONOUNS.has(token.normal);
}
