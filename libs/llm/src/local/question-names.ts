import { PRONOUNS, STOPWORDS } from './lexicon';

/**
 * The names a question asks about: its capitalised words that are not question or function
 * words ("Where does Alice live now?" → alice). Lowercased.
 */
export function namesInQuestion(question: string): string[] {
  const words = question.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const names = words.filter((word) => /^\p{Lu}/u.test(word) && !STOPWORDS.has(word.toLowerCase()) && !PRONOUNS.has(word.toLowerCase()));
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/** Whether `text` has one of `names` as a whole word. */
export function namesAny(text: string, names: readonly string[]): boolean {
  const words = new Set((text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? []).map((w) => w.replace(/['’]s$/, '')));
  return names.some((name) => words.has(name));
}

/** A sentence's identity for deduplication: case, spacing and punctuation do not count. */
export function sentenceKey(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}
