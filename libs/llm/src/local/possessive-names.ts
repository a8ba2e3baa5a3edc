import { BODY_HEADS } from './lexicon';
import type { Mention } from './mentions';
import type { Token } from './nlp';
import { isNameWord, isSaint } from './words';

/**
 * Names written with a possessive that the tagger reads as a person's: "St. Mary's" (a saint),
 * "King's Cross" (a title), "at Luigi's" (a shop or a restaurant named after its owner). Each
 * is one place or institution, taken before the tagger's reading of its words.
 */
export function possessiveNames(tokens: Token[]): Mention[] {
  return [...saintNames(tokens), ...titledPossessiveNames(tokens), ...tradeNames(tokens)];
}

/** "St. Mary's", "St. John's Choir", "St. Thomas' Hospital": places and institutions named after a saint. */
function saintNames(tokens: Token[]): Mention[] {
  const out: Mention[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (!isSaint(tokens[k]) || !isNameWord(tokens[k + 1])) continue;
    let end = k + 2;
    let possessive = /['’]s$/.test(tokens[k + 1].text) || /^['’]/.test(tokens[k + 1].post);
    while (end < tokens.length && !/[,;:()]/.test(tokens[end - 1].post)) {
      const t = tokens[end];
      if (t.tags.has('Elided')) end++;
      else if (isNameWord(t) && !t.tags.has('Date')) {
        possessive ||= /['’]s$/.test(t.text) || /^['’]/.test(t.post);
        end++;
      } else break;
    }
    // "St. Louis", "St. Petersburg": a place the library knows, named after a saint.
    const place = !possessive && end === k + 2 && tokens[k].tags.has('Place') && tokens[k + 1].tags.has('Place');
    if (!possessive && end === k + 2 && !place) continue;
    const words = tokens
      .slice(k + 1, end)
      .filter((t) => t.text !== '')
      .map((t) => t.text + (/^['’]/.test(t.post) && !/['’]s$/.test(t.text) ? "'" : ''));
    out.push({ start: tokens[k].index, end: tokens[end - 1].index + 1, name: `St. ${words.join(' ')}`, type: place ? 'location' : 'organization', sentence: tokens[k].sentence });
    k = end - 1;
  }
  return out;
}

/** Titles that name places in the possessive ("King's Cross", "Queen's Park", "Earl's Court"). */
const TITLED_POSSESSIVES = new Set(['king', 'queen', 'prince', 'princess', 'bishop', 'earl', 'duke', 'lord', 'lady']);

/** "King's Cross", "King's College London": the possessive title and the names after it are one place or institution. */
function titledPossessiveNames(tokens: Token[]): Mention[] {
  const out: Mention[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const title = tokens[k];
    if (!isNameWord(title) || !/['’]s$/.test(title.text) || !TITLED_POSSESSIVES.has(title.normal.replace(/['’]s$/, ''))) continue;
    let end = k + 1;
    while (end < tokens.length && isNameWord(tokens[end]) && !tokens[end].tags.has('Date') && !/[,;:()]/.test(tokens[end - 1].post)) end++;
    if (end === k + 1) continue;
    const words = tokens.slice(k, end).filter((t) => t.text !== '');
    const institution = BODY_HEADS.has(words[words.length - 1].normal) || ['college', 'university', 'academy'].includes(words[words.length - 1].normal);
    out.push({ start: title.index, end: tokens[end - 1].index + 1, name: words.map((t) => t.text).join(' '), type: institution ? 'organization' : 'location', sentence: title.sentence });
    k = end - 1;
  }
  return out;
}

/** Prepositions before where one works, shops or eats: "a waitress at Luigi's", "resigned from Addenbrooke's". */
const TRADE_PREPOSITIONS = new Set(['at', 'from', 'for']);
/** Nouns that end a venue's name after its owner's possessive ("Joe's Garage", "Ronnie Scott's Jazz Club"). */
const VENUE_HEADS = new Set(
  'garage cafe café bar diner kitchen bakery deli pub inn tavern restaurant bistro grill salon barbers shop store stores market clinic gym club hotel'.split(' '),
);

/**
 * "a waitress at Luigi's", "resigned from Addenbrooke's", "left Gino's": a name in the
 * possessive after at, from, for or a verb, with no noun of its own after it, names a place by
 * its owner or founder (the noun is understood: Luigi's restaurant), as "at the doctor's" does;
 * so does one followed, anywhere, by capitalized words that end in a venue's noun ("Joe's
 * Garage"). "At Tom's house" keeps Tom, and "at Bea's Tesla" is Bea's car.
 */
function tradeNames(tokens: Token[]): Mention[] {
  const out: Mention[] = [];
  for (let k = 0; k < tokens.length; k++) {
    if (!isNameWord(tokens[k])) continue;
    // After at/from/for, or a verb ("left Gino's"), the possessive alone names a place.
    const placeSlot = k > 0 && (TRADE_PREPOSITIONS.has(tokens[k - 1].normal) || (tokens[k - 1].tags.has('Verb') && !tokens[k - 1].tags.has('Copula')));
    // The owner's name, up to three words, the last in the possessive.
    let owner = k;
    while (owner < k + 2 && owner + 1 < tokens.length && !/['’]s$/.test(tokens[owner].text) && !/[^\s]/.test(tokens[owner].post) && isNameWord(tokens[owner + 1])) owner++;
    if (!/['’]s$/.test(tokens[owner].text) || tokens.slice(k, owner).some((t) => t.tags.has('Date'))) continue;
    let end = owner + 1;
    while (end < tokens.length && tokens[end].text === '') end++; // compromise's "is" for the 's
    let venue = end;
    while (venue < tokens.length && isNameWord(tokens[venue]) && !/[,;:()]/.test(tokens[venue - 1].post)) venue++;
    if (venue > end) {
      if (!VENUE_HEADS.has(tokens[venue - 1].normal)) continue;
      end = venue;
    } else {
      if (!placeSlot) continue;
      const next = tokens[end];
      const ownNoun = next && !/[,;:()]/.test(tokens[end - 1].post) && (next.tags.has('Noun') || next.tags.has('Adjective')) && !next.tags.has('Date') && !next.tags.has('Pronoun');
      if (ownNoun) continue;
    }
    const words = tokens.slice(k, end).filter((t) => t.text !== '');
    out.push({ start: tokens[k].index, end: tokens[end - 1].index + 1, name: words.map((t) => t.text).join(' '), type: 'organization', sentence: tokens[k].sentence });
    k = end - 1;
  }
  return out;
}
