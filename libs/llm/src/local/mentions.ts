import { HONORIFICS, NAME_CONNECTORS, PRONOUNS, ROLE_NOUNS } from './lexicon';
import { looksCapitalized, matchRanges, type ParsedText, type Token } from './nlp';

/**
 * Named-entity mentions from the NLP library: people, organizations and places as compromise
 * types them, then any other run of proper nouns (typed `concept` here; the relation step may
 * retype it from its verb: the object of "joined" is an organization).
 */

export type MentionType = 'person' | 'organization' | 'location' | 'concept';

export interface Mention {
  /** Document term indexes `[start, end)`. */
  start: number;
  end: number;
  name: string;
  type: MentionType;
  sentence: number;
  /** A common-noun phrase taken as a concept ("machine learning"), not a name. */
  common?: boolean;
}

const SOURCES: Array<[MentionType, (parsed: ParsedText) => { json(options?: object): unknown }]> = [
  ['person', (p) => p.doc.people()],
  ['organization', (p) => p.doc.organizations()],
  ['location', (p) => p.doc.places()],
];

/** A name as written: words joined by spaces (or the hyphen they were written with). */
export function nameOf(tokens: Token[]): string {
  const words = tokens.map((t, i) => t.text + (i < tokens.length - 1 ? (/^-\s*$/.test(t.post) ? '-' : ' ') : ''));
  return cleanName(words.join(''));
}

export function cleanName(name: string): string {
  return name
    .replace(/['’]s$/u, '')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function isNameWord(token: Token): boolean {
  return looksCapitalized(token.text) && !token.tags.has('Pronoun') && !PRONOUNS.has(token.normal);
}

/**
 * Trims a tagged span to its name: leading titles and lowercase words ("her brother David" →
 * "David", "Dr. Emily Chen" → "Emily Chen") go; it is cut where a lowercase word that is not a
 * connector ("of", "van") appears, and at commas when `splitAtCommas` ("Paris, France").
 */
function trimSpan(tokens: Token[], splitAtCommas: boolean): Token[][] {
  const pieces: Token[][] = [];
  let current: Token[] = [];
  const flush = () => {
    while (current.length && !isNameWord(current[current.length - 1])) current.pop();
    if (current.length) pieces.push(current);
    current = [];
  };
  for (const token of tokens) {
    if (current.length && /[()[\]"“”;:]/.test(token.pre)) flush();
    if (current.length === 0) {
      if (!isNameWord(token) || token.tags.has('Honorific') || HONORIFICS.has(token.normal.replace(/\.$/, ''))) continue;
      current.push(token);
    } else if (isNameWord(token) || NAME_CONNECTORS.has(token.normal)) {
      current.push(token);
    } else {
      flush();
      continue;
    }
    if (/[,;:()]/.test(token.post) && (splitAtCommas || /[;:()]/.test(token.post))) flush();
  }
  flush();
  return pieces;
}

function toMention(tokens: Token[], type: MentionType): Mention | null {
  const name = nameOf(tokens);
  const lower = name.toLowerCase();
  // "the CTO of Nimbus": a role is not an entity of its own.
  if (!name || !/\p{L}/u.test(name) || PRONOUNS.has(lower) || ROLE_NOUNS.has(lower)) return null;
  return { start: tokens[0].index, end: tokens[tokens.length - 1].index + 1, name, type, sentence: tokens[0].sentence };
}

/**
 * Mentions in document order, without overlaps (people win over organizations over places).
 * `knownNames`: lowercase words the wider text writes as names (see `nameWords`); a word that
 * starts a sentence is only taken as a name when it is one of them.
 */
export function findMentions(
  parsed: ParsedText,
  isDateToken: (index: number) => boolean,
  knownNames: ReadonlySet<string> = nameWords(parsed),
): Mention[] {
  const candidates: Mention[] = [];
  for (const [type, select] of SOURCES) {
    for (const range of matchRanges(select(parsed))) {
      const span = parsed.tokens.slice(range.start, range.end).filter((t) => t && !isDateToken(t.index));
      for (const piece of trimSpan(span, type === 'location')) {
        const mention = toMention(piece, type);
        if (mention) candidates.push(mention);
      }
    }
  }
  const taken = new Set<number>();
  const accepted: Mention[] = [];
  const accept = (mention: Mention) => {
    for (let i = mention.start; i < mention.end; i++) if (taken.has(i)) return;
    for (let i = mention.start; i < mention.end; i++) taken.add(i);
    accepted.push(mention);
  };
  candidates.forEach(accept);

  // Proper nouns the library did not type ("Acme", "DeepMind").
  for (const sentence of parsed.sentences) {
    let run: Token[] = [];
    const flush = () => {
      for (const piece of trimSpan(run, true)) {
        const mention = toMention(piece, 'concept');
        if (mention) accept(mention);
      }
      run = [];
    };
    for (const token of sentence.tokens) {
      const initialName = token === sentence.tokens[0] && token.tags.has('Noun') && knownNames.has(token.normal);
      const proper =
        (token.tags.has('ProperNoun') || initialName) &&
        !taken.has(token.index) &&
        !isDateToken(token.index) &&
        !token.tags.has('Date') &&
        !token.tags.has('Value') &&
        !token.tags.has('Adjective') &&
        !token.tags.has('Demonym') &&
        isNameWord(token);
      if (proper) run.push(token);
      else flush();
      if (/[,;:()]/.test(token.post)) flush();
    }
    flush();
  }
  return accepted.sort((a, b) => a.start - b.start);
}

/**
 * Words written as proper nouns somewhere other than at the start of a sentence. A capitalized
 * word that starts a sentence is only known to be a name if the text also writes it that way
 * elsewhere ("Acme opened an office." after "... joined Acme.").
 */
export function nameWords(parsed: ParsedText, into: Set<string> = new Set()): Set<string> {
  for (const sentence of parsed.sentences) {
    sentence.tokens.forEach((t, k) => {
      if (k > 0 && isNameWord(t) && (t.tags.has('ProperNoun') || t.tags.has('Person') || t.tags.has('Organization'))) into.add(t.normal);
    });
  }
  return into;
}
