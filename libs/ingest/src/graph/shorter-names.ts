import type { EntityToWrite } from './write-types';

/**
 * A name written without the noun that says what kind of body it is ("graduated from McGill"
 * after "McGill University", "left Labour" after "the Labour Party", "Northgate" for "Northgate
 * High", "the Greens" for "the Green Party"). Its name vector is too far from the full name's for resolution by similarity, so a
 * text's name of an organization (or an untyped one) is also looked up with each of these nouns
 * after it; when exactly one such entity exists, and none of the name itself, the name is that
 * entity. A person's or a place's name never is ("Lincoln" is not "Lincoln High").
 */
const BODY_NOUNS = [
  'university', 'college', 'school', 'academy', 'high', 'party', 'club', 'society', 'hospital', 'clinic',
  'museum', 'gallery', 'library', 'band', 'choir', 'orchestra', 'fc', 'group', 'company', 'inc', 'ltd', 'bank', 'prison',
];
const BODY_NOUN_SET = new Set(BODY_NOUNS);
const SHORT_NAME_TYPES = new Set(['organization', 'concept']);
const MAX_WORDS = 3;

/** The fuller names to look up: each fuller normalised name → the text's name it would complete. */
export function fullerNames(named: ReadonlyArray<{ key: string; entity: EntityToWrite }>): Map<string, string> {
  const fuller = new Map<string, string>();
  for (const { key, entity } of named) {
    const words = key.split(' ');
    if (!SHORT_NAME_TYPES.has(entity.type) || words.length > MAX_WORDS || BODY_NOUN_SET.has(words[words.length - 1])) continue;
    for (const noun of BODY_NOUNS) fuller.set(`${key} ${noun}`, key);
    // "left the Greens" after "the Green Party": a party named by its members in the plural.
    const last = words[words.length - 1];
    if (/[^s]s$/.test(last)) fuller.set(`${[...words.slice(0, -1), last.slice(0, -1)].join(' ')} party`, key);
  }
  return fuller;
}

/**
 * The text's names that resolve to an entity of a fuller name: `found` holds the existing
 * entities of the fuller names looked up, `exact` those of the text's own names. A name with an
 * entity of its own, or with several fuller ones (McGill University and McGill Hospital), keeps
 * the usual resolution.
 */
export function shorterNameMatches(fuller: ReadonlyMap<string, string>, found: ReadonlyMap<string, number>, exact: ReadonlyMap<string, number>): Map<string, number> {
  const candidates = new Map<string, Set<number>>();
  for (const [name, id] of found) {
    const short = fuller.get(name);
    if (short === undefined || exact.has(short)) continue;
    candidates.set(short, (candidates.get(short) ?? new Set()).add(id));
  }
  const matches = new Map<string, number>();
  for (const [short, ids] of candidates) if (ids.size === 1) matches.set(short, [...ids][0]);
  return matches;
}

/**
 * What a look-up of the text's names and their fuller names found (`found`, normalised name → id),
 * split into the text's names that exist as written and its short names that resolve to a fuller one.
 */
export function namesFound(keys: readonly string[], fuller: ReadonlyMap<string, string>, found: ReadonlyMap<string, number>): { exact: Map<string, number>; shorter: Map<string, number> } {
  const exact = new Map(keys.filter((key) => found.has(key)).map((key) => [key, found.get(key)!]));
  return { exact, shorter: shorterNameMatches(fuller, found, exact) };
}
