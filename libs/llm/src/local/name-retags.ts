import { EVENT_VERBS, STATE_VERBS } from './lexicon';
import type { Token } from './nlp';
import { looksCapitalized } from './words';

/**
 * Corrections to compromise's tags that keep a name whole: names it reads as dates, numerals,
 * prepositions or a plural and a verb. Called by `retagSentence` (retags.ts) in its order.
 */

const DATE_TAGS = ['Date', 'Duration', 'Month', 'Abbreviation', 'WeekDay'];
/** Words before a hyphen that make a date of the month after it ("mid-June"). */
const DATE_PREFIXES = new Set(['mid', 'early', 'late', 'end', 'start']);

/**
 * "Min-jun works at Samsung": a capitalized word joined by a hyphen to a lowercase one is a
 * given name (Korean, Chinese), which compromise reads as "min" (minutes) and "jun" (June).
 */
export function retagHyphenatedGivenNames(tokens: Token[]): void {
  for (let k = 0; k + 1 < tokens.length; k++) {
    const [first, second] = [tokens[k], tokens[k + 1]];
    if (!/^-$/.test(first.post) || !/^\p{Lu}\p{Ll}+$/u.test(first.text) || !/^\p{Ll}+(?:['’]s)?$/u.test(second.text)) continue;
    if (DATE_PREFIXES.has(first.normal) || !(first.tags.has('Date') || second.tags.has('Date'))) continue;
    for (const token of [first, second]) {
      const tags = token.tags as Set<string>;
      for (const tag of DATE_TAGS) tags.delete(tag);
      for (const tag of ['Noun', 'Singular', 'ProperNoun', 'Hyphenated']) tags.add(tag);
    }
    // ("works" after the name was read as a plural noun, the name being a date.)
    const verb = tokens[k + 2];
    const stem = verb?.normal.replace(/(?:ie)?s$/, (m) => (m === 'ies' ? 'y' : ''));
    if (verb && verb.tags.has('Plural') && !verb.tags.has('Verb') && (STATE_VERBS.has(stem) || EVENT_VERBS.has(stem))) {
      const tags = verb.tags as Set<string>;
      tags.clear();
      for (const tag of ['Verb', 'PresentTense']) tags.add(tag);
    }
  }
}

const INDEFINITE = new Set(['a', 'an']);
const NAMING_WORDS = new Set(['called', 'named']);

/**
 * "a Labrador called Max", "a sailing boat named Seraphina": between "a" and "called" stands
 * what kind of thing the name is (a breed, a make), a common noun, and a gerund there describes
 * it ("sailing"); read as a name and a verb, "called" would start a clause of its own.
 */
export function retagKindsBeforeTheirNames(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    if (!INDEFINITE.has(tokens[k - 1].normal)) continue;
    const head = NAMING_WORDS.has(tokens[k + 1].normal) ? k : NAMING_WORDS.has(tokens[k + 2]?.normal ?? '') ? k + 1 : -1;
    if (head < 0 || !looksCapitalized(tokens[head + 2]?.text ?? '') || /[,;:]/.test(tokens[head].post)) continue;
    for (let i = k; i <= head; i++) {
      const tags = tokens[i].tags as Set<string>;
      tags.clear();
      tags.add(i === head ? 'Noun' : 'Adjective');
      if (i === head) tags.add('Singular');
    }
  }
}

/** Legal forms written in capitals after a company's name that are English words too. */
const LEGAL_FORMS = new Set(['AS', 'SA', 'AG', 'NV', 'BV', 'AB', 'ASA', 'SE', 'OY']);
/** Prefixes of ships' names ("the MV Aurora", "the SS Great Britain"), which compromise reads as numerals or abbreviations. */
const SHIP_PREFIXES = new Set(['mv', 'ss', 'hms', 'rms', 'uss', 'ms', 'mt', 'hmas', 'hmcs']);

/**
 * "D66", "G20", "the MV Aurora", "Nordic Wind AS": capital letters with digits are a name, and
 * so are a ship's prefix before a name and a company's legal form after it; compromise reads them
 * as a plain noun, a numeral, an abbreviation or a preposition, and the name would lose them.
 */
export function retagLettersAndDigitNames(tokens: Token[]): void {
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    const lettersAndDigits = /^\p{Lu}+\d+\p{Lu}*$/u.test(token.text) || /^\p{Lu}{1,3}\d+\p{Lu}\d*$/u.test(token.text);
    // ("Nordic Wind AS": a company's legal form after its name, "AS" no preposition.)
    const legalForm = LEGAL_FORMS.has(token.text) && k > 0 && looksCapitalized(tokens[k - 1].text) && !/[^\s]/.test(tokens[k - 1].post) && !looksCapitalized(tokens[k + 1]?.text ?? 'x');
    const shipPrefix = SHIP_PREFIXES.has(token.normal) && /^\p{Lu}+$/u.test(token.text) && /^\p{Lu}/u.test(tokens[k + 1]?.text ?? '') && !/[^\s]/.test(token.post);
    if (!lettersAndDigits && !shipPrefix && !legalForm) continue;
    const tags = token.tags as Set<string>;
    for (const tag of ['Value', 'Cardinal', 'RomanNumeral', 'Abbreviation', 'NumericValue', 'Date', 'Year', 'Preposition', 'Conjunction', 'Adverb']) tags.delete(tag);
    for (const tag of ['Noun', 'ProperNoun', 'Acronym']) tags.add(tag);
  }
}
