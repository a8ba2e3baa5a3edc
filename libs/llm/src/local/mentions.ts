import { BODY_HEADS, HONORIFICS, NAME_CONNECTORS, PRONOUNS, ROLE_NOUNS } from './lexicon';
import { lexiconTag, matchRanges, type ParsedText, type Token } from './nlp';
import { possessiveNames } from './possessive-names';
import { namedWorks } from './work-names';
import { isNameWord } from './words';

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

/**
 * The word is written as a possessive ("Nimbus's", "Owls'"). (The tagger also marks the given
 * name before a possessive surname, "Nadia" in "Nadia Petrova's": no apostrophe, no possessive.)
 */
function possessive(token: Token): boolean {
  return /['’]s?$/.test(token.text) || /^['’]/.test(token.post) || (token.tags.has('Possessive') && token.text === '');
}

/** "Ji-woo", "Min-jun": the lowercase part after a hyphen continues the capitalized name before it. */
function continuesName(previous: Token | undefined, token: Token): boolean {
  return previous !== undefined && /^-$/.test(previous.post) && token.tags.has('Hyphenated') && /^\p{Ll}+(?:['’]s)?$/u.test(token.text) && (isNameWord(previous) || continuesName(undefined, previous));
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
    while (current.length && !isNameWord(current[current.length - 1]) && !continuesName(current[current.length - 2], current[current.length - 1])) current.pop();
    if (current.length) pieces.push(current);
    current = [];
  };
  for (const token of tokens) {
    if (current.length && /[()[\]"“”;:]/.test(token.pre)) flush();
    if (current.length === 0) {
      if (!isNameWord(token) || token.tags.has('Honorific') || HONORIFICS.has(token.normal.replace(/\.$/, ''))) continue;
      current.push(token);
    } else if (isNameWord(token) || NAME_CONNECTORS.has(token.normal) || continuesName(current[current.length - 1], token)) {
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
  if (!name || !/\p{L}/u.test(name) || PRONOUNS.has(lower) || ROLE_NOUNS.has(lower) || HONORIFICS.has(lower)) return null;
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
        // ("a Labrador called Max": the kind of thing a name is, retags.ts.)
        if (mention && !parsed.tokens[mention.start]?.tags.has('ProperNoun') && kindBeforeName(parsed, mention)) continue;
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
  // "St. Mary's", "King's Cross", "at Luigi's": the library reads a person called Mary, or Luigi.
  for (const sentence of parsed.sentences) possessiveNames(sentence.tokens).forEach(accept);
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
    const first = sentence.tokens.find((t) => t.text !== '');
    sentence.tokens.forEach((token, k) => {
      if (token.tags.has('Elided')) return;
      if (run.length > 0 && continuesName(run[run.length - 1], token)) {
        run.push(token);
        return;
      }
      const initialName =
        token === first &&
        // ("Hetty is …": a word the tagger guessed an adjective for its ending, which the lexicon does not list.)
        (((token.tags.has('Noun') || (token.tags.has('Adjective') && lexiconTag(token.normal) === undefined)) && (knownNames.has(token.normal) || unknownInitialName(sentence.tokens, k))) ||
          firstWordOfName(sentence.tokens, k));
      const next = sentence.tokens[k + 1];
      const previous = sentence.tokens[k - 1];
      // "Northgate High has …": a capitalized word inside a sentence, right after a name, goes on with it.
      const afterName =
        previous !== undefined &&
        token !== first &&
        isNameWord(previous) &&
        (taken.has(previous.index) || run.includes(previous)) &&
        !/[^\s]/.test(previous.post) &&
        !previous.tags.has('Possessive') &&
        !/['’]s$/.test(previous.text) &&
        !isVerbOrFunctionWord(token);
      // "Nordic Foods", "Royal Free Hospital": a capitalized adjective before a name is part of it.
      const adjectiveOfName =
        (token.tags.has('Adjective') || token.tags.has('Demonym')) &&
        next !== undefined &&
        next.tags.has('ProperNoun') &&
        isNameWord(next) &&
        !/[,;:()]/.test(token.post);
      const proper =
        (token.tags.has('ProperNoun') || token.tags.has('Acronym') || initialName || adjectiveOfName || afterName) &&
        !taken.has(token.index) &&
        !isDateToken(token.index) &&
        !token.tags.has('Date') &&
        !token.tags.has('Value') &&
        ((!token.tags.has('Adjective') && !token.tags.has('Demonym')) || adjectiveOfName || afterName || initialName) &&
        isNameWord(token);
      if (proper) run.push(token);
      else flush();
      // "Nimbus's CTO": a possessive ends the name it belongs to.
      if (/[,;:()]/.test(token.post) || (proper && possessive(token))) flush();
    });
    flush();
  }
  // "Tom Ward", typed a place for its last word: a given name before a surname is a person.
  for (const m of accepted) if (m.type === 'location' && givenNameFirst(m)) m.type = 'person';
  // "The Mona Lisa", "the Bush administration": a person's name takes no article; with one it names a thing.
  for (const m of accepted) if (m.type === 'person' && parsed.tokens[m.start - 1]?.normal === 'the') m.type = 'concept';
  for (const sentence of parsed.sentences) namedBodies(sentence.tokens).forEach(accept);
  for (const m of accepted) withNumber(m, parsed, isDateToken);
  return namedWorks(mergeAdjacent(accepted.sort((a, b) => a.start - b.start), parsed), parsed);
}

const DECIDING_BODIES = new Set(['committee', 'board', 'council', 'association', 'society', 'union']);

/**
 * "the food bank", "the housing committee", "the student union": "the", then one or two nouns
 * that say which, then the noun of a body, is one body, the same in a later text that names it
 * the same way. Adjectives ("the local club") and a lone noun ("the club") say too little.
 */
function namedBodies(tokens: Token[]): Mention[] {
  const bodies: Mention[] = [];
  for (let k = 1; k < tokens.length; k++) {
    if (tokens[k - 1].normal !== 'the') continue;
    for (const length of [2, 3]) {
      const phrase = tokens.slice(k, k + length);
      const head = phrase[phrase.length - 1];
      if (phrase.length < length || !BODY_HEADS.has(head.normal) || !head.tags.has('Noun')) continue;
      if (!phrase.every((t) => /^\p{Ll}/u.test(t.text)) || phrase.slice(0, -1).some((t) => /[,;:]/.test(t.post))) continue;
      const modifiers = phrase.slice(0, -1);
      // ("the housing committee", "the planning board": a word in -ing names what a body of
      // people deciding things is for; "the winning team" is no name.)
      const purpose = (t: Token) => /ing$/.test(t.normal) && DECIDING_BODIES.has(head.normal);
      const modifier = (t: Token) => (purpose(t) || (t.tags.has('Noun') && !t.tags.has('Adjective'))) && !t.tags.has('Plural') && !t.tags.has('Possessive') && !t.tags.has('Pronoun');
      if (!modifiers.every(modifier)) continue;
      // ("the school board meeting": the body is the meeting's, not the object.)
      const after = tokens[k + length];
      if (after && after.tags.has('Noun') && !/[,;:]/.test(head.post)) continue;
      bodies.push({ start: phrase[0].index, end: head.index + 1, name: phrase.map((t) => t.text).join(' '), type: 'organization', sentence: phrase[0].sentence });
      break;
    }
  }
  return bodies;
}

/**
 * "Building 4", "Terminal 2", "Apollo 11": a short number right after a name is part of it
 * (not a year, not a count of what follows: "gave Acme 3 chairs").
 */
function withNumber(mention: Mention, parsed: ParsedText, isDateToken: (index: number) => boolean): void {
  const last = parsed.tokens[mention.end - 1];
  const number = parsed.tokens[mention.end];
  if (!last || !number || number.sentence !== last.sentence || last.post.trim() !== '' || isDateToken(number.index) || number.tags.has('Date')) return;
  if (!/^\d{1,3}[A-Za-z]?$/.test(number.text)) return;
  const after = parsed.tokens[mention.end + 1];
  if (after && after.sentence === number.sentence && number.post.trim() === '' && (after.tags.has('Noun') || after.tags.has('Adjective'))) return;
  mention.end += 1;
  mention.name = nameOf(parsed.tokens.slice(mention.start, mention.end));
}

const INITIAL_ADVERBS = new Set(['now', 'also', 'still', 'recently', 'currently', 'later', 'then', 'finally', 'eventually', 'since', 'once']);

/** Lexicon tags of words that are names whatever the lexicon says of them otherwise. */
const NAME_LEXICON_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName', 'LastName', 'Person', 'Organization', 'Place', 'City', 'Country', 'Noun']);

/**
 * A capitalized word that starts a sentence and that the library's lexicon does not list as a
 * common word ("Kwame lives in Accra.", "Globex is headquartered in Chicago.", "Acme's CEO is
 * Jane."): a singular count noun needs an article there, so a bare one before a verb or a
 * possessive is a name. Mass nouns ("Water flows", "Research shows") are in the lexicon.
 */
function unknownInitialName(tokens: Token[], k: number): boolean {
  const token = tokens[k];
  if (!isNameWord(token) || token.tags.has('Pronoun') || token.tags.has('Determiner')) return false;
  const word = token.normal.replace(/['’]s$/, '');
  const known = lexiconTag(word);
  if (known !== undefined && !NAME_LEXICON_TAGS.has(known)) return false;
  if ((token.tags.has('Possessive') || /['’]s$/.test(token.text)) && !token.tags.has('Plural')) return true;
  const following = tokens[k + 1];
  // "Rhys Morgan is a reporter": an unknown word right before a surname is the given name (not a plural).
  if (following !== undefined && !/[^\s]/.test(token.post) && isNameWord(following) && following.tags.has('Person') && !following.tags.has('Possessive')) return true;
  // "Amara Diallo's tenure …": a given name before a surname in the possessive.
  if (following !== undefined && !/[^\s]/.test(token.post) && isNameWord(following) && following.tags.has('ProperNoun') && (following.tags.has('Possessive') || /['’]s$/.test(following.text))) return true;
  let j = k + 1;
  // "Ji-woo is …": the name goes on after its hyphen.
  while (j < tokens.length && continuesName(tokens[j - 1], tokens[j])) j++;
  while (j < tokens.length && (tokens[j].tags.has('Adverb') || INITIAL_ADVERBS.has(tokens[j].normal) || tokens[j].text === '')) j++;
  let next = tokens[j];
  // "Ravi, formerly of Infosys, now works at TCS": past the apposition to the verb.
  if (/,/.test(token.post)) {
    let close = k + 1;
    while (close < tokens.length - 1 && close - k < 10 && !/,/.test(tokens[close].post)) close++;
    let after = close + 1;
    while (after < tokens.length && (tokens[after].tags.has('Adverb') || INITIAL_ADVERBS.has(tokens[after].normal))) after++;
    if (/,/.test(tokens[close]?.post ?? '')) next = tokens[after];
  }
  const verb = next !== undefined && (next.tags.has('Verb') || next.tags.has('Auxiliary') || next.tags.has('Copula'));
  // "Leo and Mia are no longer together": a bare word joined by "and" to a person's name is one.
  const partner = tokens[j + 1];
  if (next?.normal === 'and' && partner !== undefined && isNameWord(partner) && (partner.tags.has('Person') || partner.tags.has('FirstName') || partner.tags.has('ProperNoun'))) return true;
  // "Kemi and her family live in Lagos": one whose family goes with them is someone.
  if (next?.normal === 'and' && SINGULAR_POSSESSIVES.has(partner?.normal ?? '') && tokens[j + 2]?.tags.has('Noun') === true) return true;
  // "Aleks is a student", "Aleks completed his degree": the tagger reads a plural, but a plural
  // takes "are" and "their"; a singular verb or "his"/"her" right after the verb say it is one name.
  // ("Rhys works at": a verb in the third person singular.)
  const thirdPerson = verb && next.tags.has('PresentTense') && /[^s]s$/.test(next.normal);
  if (token.tags.has('Plural')) return verb && (SINGULAR_VERBS.test(next.normal) || thirdPerson || SINGULAR_POSSESSIVES.has(tokens[j + 1]?.normal ?? ''));
  return verb;
}

const FUNCTION_TAGS = ['Verb', 'Auxiliary', 'Copula', 'Modal', 'Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Date', 'Value'];
const isVerbOrFunctionWord = (token: Token) => FUNCTION_TAGS.some((tag) => token.tags.has(tag));

/**
 * "Harbour Books belongs to Nina", "Golden Gate Capital owns it": a capitalized common word that
 * starts a sentence, written right before a name that is no person's, begins that name when the
 * name is the subject of a verb ("Visit Paris today" has none; "Call Tom" names a person).
 */
function firstWordOfName(tokens: Token[], k: number): boolean {
  const token = tokens[k];
  if (!isNameWord(token) || /[^\s]/.test(token.post) || ['Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Date', 'Value', 'Adverb', 'Auxiliary', 'Copula', 'Modal'].some((tag) => token.tags.has(tag))) return false;
  const next = tokens[k + 1];
  if (!next || !isNameWord(next) || !next.tags.has('ProperNoun') || next.tags.has('Person') || next.tags.has('FirstName')) return false;
  let j = k + 1;
  while (j < tokens.length && isNameWord(tokens[j]) && !/[^\s]/.test(tokens[j - 1].post)) j++;
  const verb = tokens[j];
  return verb !== undefined && (verb.tags.has('Verb') || verb.tags.has('Copula') || verb.tags.has('Auxiliary')) && !/[,;:]/.test(tokens[j - 1].post);
}

const SINGULAR_VERBS = /^(?:is|was|has|does)$/;
const SINGULAR_POSSESSIVES = new Set(['his', 'her']);

/** Last words of a place's name that a given name can start ("Victoria Street", "Mary Hill"). */
const PLACE_HEADS = new Set(
  'street road lane avenue square park hill hills station bridge river lake island bay city county town village valley heights gardens place court way close drive crescent terrace'.split(' '),
);
const GIVEN_NAME_TAGS = new Set(['MaleName', 'FemaleName', 'FirstName']);

/** The mention is a given name the lexicon lists ("Tom", "Harley"). */
export const isGivenName = (mention: Mention) => GIVEN_NAME_TAGS.has(lexiconTag(mention.name.toLowerCase()) ?? '');

/** A two-word name whose first word is a given name in the lexicon and whose last is no place's noun. */
function givenNameFirst(mention: Mention): boolean {
  const words = mention.name.toLowerCase().split(/\s+/);
  return words.length === 2 && GIVEN_NAME_TAGS.has(lexiconTag(words[0]) ?? '') && !PLACE_HEADS.has(words[1]) && lexiconTag(words[1]) !== 'Country' && lexiconTag(words[1]) !== 'City';
}

/** The last word of a firm's name after "and" ("Foster and Partners", "Dombey and Son"). */
const FIRM_TAILS = new Set(['partners', 'sons', 'son', 'co', 'company', 'associates', 'daughters', 'brothers']);

/**
 * Two names side by side with nothing between them are one name ("Honda" + "Civic", "Las" +
 * "Vegas", "TU" + "Munich"): the library typed their words apart. The head's type wins unless
 * it has none; a person's name followed by another word is not a person's ("Tate Modern").
 */
/** A word between "a" and "called" / "named" ("a Labrador called Max"). */
function kindBeforeName(parsed: ParsedText, mention: Mention): boolean {
  return ['a', 'an'].includes(parsed.tokens[mention.start - 1]?.normal ?? '') && ['called', 'named'].includes(parsed.tokens[mention.end]?.normal ?? '');
}

/** Nouns that end the first part of a body's name that "of" continues ("Union of Mineworkers"). */
const INSTITUTION_HEADS = new Set(
  'union federation association society institute institution college university academy council ministry department bank league guild order church commission court museum'.split(' '),
);
/** Particles inside names of other languages ("Banco de España", "Domaine des Roches"). */
const NAME_PARTICLES = new Set(['de', 'des', 'du', 'di', 'del', 'della', 'da', 'dos', 'das', 'von', 'van', 'der', 'den', 'la', 'le']);

function mergeAdjacent(mentions: Mention[], parsed: ParsedText): Mention[] {
  const out: Mention[] = [];
  for (const mention of mentions) {
    const previous = out[out.length - 1];
    const between = previous ? parsed.tokens.slice(previous.end, mention.start) : [];
    const last = previous ? parsed.tokens[previous.end - 1] : undefined;
    const joinable =
      previous &&
      !previous.common &&
      !mention.common &&
      previous.sentence === mention.sentence &&
      between.every((t) => t?.tags.has('Elided')) &&
      last !== undefined &&
      // ("Rolls-Royce": two names joined by a hyphen are one.)
      (!/[^\s]/.test(last.post) || /^-$/.test(last.post)) &&
      !possessive(last);
    // "Hearts of Oak", "the Star of Asia": an untyped name and the name after its "of" are one.
    const ofJoinable =
      previous &&
      !joinable &&
      previous.type === 'concept' &&
      !previous.common &&
      !mention.common &&
      // ("the Isle of Skye": after "the", the second name is no person's either.)
      (mention.type !== 'person' || parsed.tokens[previous.start - 1]?.normal === 'the') &&
      previous.sentence === mention.sentence &&
      between.length === 1 &&
      between[0].normal === 'of' &&
      !/[,;:]/.test(parsed.tokens[previous.end - 1]?.post ?? '') &&
      (mention.type === 'concept' || parsed.tokens[previous.start - 1]?.normal === 'the');
    // "the National Union of Mineworkers", "the Institut Pasteur de Dakar", "Domaine des Roches":
    // a body's name goes on past its "of" (after the noun that says what body it is), and a name
    // past a particle of the languages that join names with one.
    const connector = between.length === 1 ? between[0].normal : '';
    const bodyJoinable =
      previous &&
      !joinable &&
      !ofJoinable &&
      !previous.common &&
      !mention.common &&
      mention.type !== 'person' &&
      previous.type !== 'location' &&
      previous.type !== 'person' &&
      previous.sentence === mention.sentence &&
      !/[,;:]/.test(parsed.tokens[previous.end - 1]?.post ?? '') &&
      ((connector === 'of' && previous.type === 'organization' && INSTITUTION_HEADS.has(previous.name.toLowerCase().split(/\s+/).pop() ?? '')) || NAME_PARTICLES.has(connector));
    if (bodyJoinable) {
      const tokens = parsed.tokens.slice(previous.start, mention.end).filter((t) => t && t.text !== '');
      out[out.length - 1] = { ...previous, end: mention.end, name: nameOf(tokens), type: previous.type };
      continue;
    }
    // "The Girl with a Pearl Earring", "The Man with the Golden Gun": a title, one name.
    const withJoinable =
      previous &&
      !joinable &&
      !ofJoinable &&
      previous.type === 'concept' &&
      !previous.common &&
      !mention.common &&
      previous.sentence === mention.sentence &&
      parsed.tokens[previous.start - 1]?.normal === 'the' &&
      between.length === 2 &&
      between[0].normal === 'with' &&
      ['a', 'an', 'the'].includes(between[1].normal) &&
      !/[,;:]/.test(parsed.tokens[previous.end - 1]?.post ?? '');
    // "Foster and Partners", "Marks and Spencer's": a firm's name joined by "and" to its partners.
    const firmJoinable =
      previous &&
      !joinable &&
      !previous.common &&
      !mention.common &&
      previous.sentence === mention.sentence &&
      between.length === 1 &&
      (between[0].normal === 'and' || between[0].text === '&') &&
      // ("Allen & Overy": an ampersand joins a firm's names, not two given names, "Tom & Ann".)
      (FIRM_TAILS.has(mention.name.toLowerCase().split(/\s+/).pop() ?? '') || (between[0].text === '&' && !(isGivenName(previous) && isGivenName(mention)))) &&
      !/[,;:]/.test(parsed.tokens[previous.end - 1]?.post ?? '');
    if (firmJoinable) {
      const tokens = parsed.tokens.slice(previous.start, mention.end).filter((t) => t && t.text !== '');
      out[out.length - 1] = { ...previous, end: mention.end, name: nameOf(tokens), type: 'organization' };
      continue;
    }
    if (ofJoinable || withJoinable) {
      const tokens = parsed.tokens.slice(previous.start, mention.end).filter((t) => t && t.text !== '');
      out[out.length - 1] = { ...previous, end: mention.end, name: nameOf(tokens), type: 'concept' };
      continue;
    }
    if (!joinable) {
      out.push(mention);
      continue;
    }
    const tokens = parsed.tokens.slice(previous.start, mention.end).filter((t) => t && t.text !== '');
    // "Codex Leicester", "TU Munich": a place after another name is not what the name is.
    let type: MentionType =
      mention.type === 'location' && previous.type === 'concept' ? 'concept' : mention.type !== 'concept' ? mention.type : previous.type;
    if (previous.type !== mention.type && (previous.type === 'person' || mention.type === 'person')) {
      type = [previous.type, mention.type].find((t) => t !== 'person' && t !== 'concept') ?? 'concept';
    }
    out[out.length - 1] = { ...previous, end: mention.end, name: nameOf(tokens), type };
  }
  return out;
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
