import type { DatesMethods } from 'compromise-dates';
import { compromise, type Nlp } from './compromise';
import { EVENT_VERBS, STATE_VERBS } from './lexicon';

/**
 * The one place that loads the NLP library (compromise, with its dates plugin). Everything else
 * in the local provider works on the plain `Token`s built here, so the library's object model
 * stays in this file and the next one (`mentions.ts`).
 *
 * compromise ships its lexicon and rules inside the package: nothing is downloaded at run time.
 * It is synchronous and English-only, and loaded on first use (`compromise.ts`).
 */
export type Doc = ReturnType<Nlp> & DatesMethods;

export function parse(text: string): Doc {
  return compromise()<DatesMethods>(text);
}

/** compromise's term JSON (the fields used here). */
export interface TermJson {
  text: string;
  pre: string;
  post: string;
  normal?: string;
  tags?: string[];
  offset?: { index: number; start: number; length: number };
}

interface MatchJson {
  text: string;
  terms: TermJson[];
}

export interface Token {
  /** Term index within the parsed document (compromise's `offset.index`). */
  index: number;
  /** The word as written, without surrounding punctuation. */
  text: string;
  /** Lowercased, punctuation-free form. */
  normal: string;
  pre: string;
  post: string;
  tags: ReadonlySet<string>;
  sentence: number;
}

export interface ParsedSentence {
  index: number;
  text: string;
  /** Contiguous: `tokens[k].index === tokens[0].index + k`. */
  tokens: Token[];
}

export interface ParsedText {
  doc: Doc;
  sentences: ParsedSentence[];
  /** By document term index. */
  tokens: Token[];
}

const NAME_TAGS = ['ProperNoun', 'Person', 'FirstName', 'LastName', 'Organization', 'Place', 'City', 'Country', 'Region'];

/**
 * A lowercase word is never a name, whatever the tagger guessed: compromise reads
 * "Where does Alice work?" as a person called "Alice work".
 */
export function looksCapitalized(word: string): boolean {
  return /^[\p{Lu}\p{N}]/u.test(word) || /^\p{Ll}+\p{Lu}/u.test(word);
}

export function parseText(text: string, sentenceOffset = 0): ParsedText {
  const doc = parse(text);
  const sentences: ParsedSentence[] = [];
  const tokens: Token[] = [];
  const json = doc.json({ offset: true, terms: { offset: true } }) as MatchJson[];
  json.forEach((sentenceJson, s) => {
    const sentenceTokens: Token[] = [];
    for (const term of sentenceJson.terms) {
      const index = term.offset?.index ?? tokens.length;
      const tags = new Set(term.tags ?? []);
      if (!looksCapitalized(term.text)) for (const tag of NAME_TAGS) tags.delete(tag);
      const token: Token = {
        index,
        text: term.text,
        normal: (term.normal ?? term.text).toLowerCase(),
        pre: term.pre ?? '',
        post: term.post ?? '',
        tags,
        sentence: sentenceOffset + s,
      };
      tokens[index] = token;
      sentenceTokens.push(token);
    }
    retagCoordinatedPastVerbs(sentenceTokens);
    retagSaintPossessives(sentenceTokens);
    retagInitialNamesInIng(sentenceTokens);
    retagInitialNamesReadAsVerbs(sentenceTokens);
    retagObjectsReadAsVerbs(sentenceTokens);
    retagPhrasalGet(sentenceTokens);
    retagPossessiveContractions(sentenceTokens);
    retagEndingVerbs(sentenceTokens);
    retagInfinitives(sentenceTokens);
    retagProgressives(sentenceTokens);
    sentences.push({ index: sentenceOffset + s, text: sentenceJson.text.trim(), tokens: sentenceTokens });
  });
  return { doc, sentences, tokens };
}

const COORDINATORS = new Set(['and', 'then', 'but', 'later']);
const PERFECT_AUXILIARIES = new Set(['has', 'have', 'had']);
const ADVERBS_BETWEEN = new Set(['since', 'just', 'recently', 'now', 'already', 'also', 'finally', 'officially']);

/**
 * compromise reads the second verb of "left Acme and joined Globex" as an adjective ("joined
 * Globex" like "joined hands"), which lost every second event of a sentence. A past-looking
 * word after a coordinator and before a name is the verb of a new clause.
 */
function retagCoordinatedPastVerbs(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !tags.has('Adjective') || !/ed$/.test(tokens[k].normal)) continue;
    let j = k - 1;
    while (j > 0 && ADVERBS_BETWEEN.has(tokens[j].normal)) j--;
    // "has since joined Anthropic": a perfect tense is a verb too.
    const perfect = PERFECT_AUXILIARIES.has(tokens[j].normal);
    if ((!COORDINATORS.has(tokens[k - 1].normal) && !perfect) || !tokens[k + 1].tags.has('ProperNoun')) continue;
    tags.delete('Adjective');
    tags.add('Verb');
    tags.add('PastTense');
  }
}

/**
 * compromise expands "Mary's" to "Mary is" with an empty copula term, also in "St. Mary's" (a
 * place named after a saint, never "St. Mary is"). After "St. Name's" the empty term is the
 * possessive it was written as: it loses its verb tags, so no clause starts there.
 */
function retagSaintPossessives(tokens: Token[]): void {
  for (let k = 2; k < tokens.length; k++) {
    const elided = tokens[k];
    if (elided.text !== '' || !elided.tags.has('Copula')) continue;
    if (!/['’]s$/.test(tokens[k - 1].text) || !isSaint(tokens[k - 2])) continue;
    const tags = elided.tags as Set<string>;
    tags.clear();
    tags.add('Elided');
  }
}

const VERB_TAGS = ['Verb', 'Copula', 'Auxiliary', 'Modal'];

/**
 * compromise also expands "Amara's" to "Amara is" where the 's is a possessive: "Amara's new
 * flat is in Abuja" has its verb later. A possessor is followed by a noun phrase without a
 * determiner ("new flat") and then the clause's verb; a copula by its complement ("Amara's a
 * doctor", "Amara's happy"). In the first case the empty term goes and the name is possessive.
 */
function retagPossessiveContractions(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const elided = tokens[k];
    if (elided.text !== '' || !elided.tags.has('Copula') || !/['’]s$/.test(tokens[k - 1].text)) continue;
    let j = k + 1;
    while (
      j < tokens.length &&
      (tokens[j].tags.has('Adjective') || tokens[j].tags.has('Noun') || tokens[j].normal === 'ex') &&
      !tokens[j].tags.has('Pronoun') &&
      !VERB_TAGS.some((tag) => tokens[j].tags.has(tag)) &&
      !/[,;:]/.test(tokens[j - 1].post)
    ) {
      j++;
    }
    const last = tokens[j - 1];
    const verb = tokens[j];
    const verbAfter = last.tags.has('Noun') && verb !== undefined && VERB_TAGS.some((tag) => verb.tags.has(tag)) && !verb.tags.has('Gerund');
    // "Theo is Dr. Patel's patient": the clause has its verb already, so the 's is no second one.
    const verbBefore = j === tokens.length || /[.;:!?]/.test(last.post) ? clauseHasCopula(tokens, k - 1) : false;
    if (j === k + 1 || (!verbAfter && !verbBefore)) continue;
    const tags = elided.tags as Set<string>;
    tags.clear();
    tags.add('Elided');
    (tokens[k - 1].tags as Set<string>).add('Possessive');
    // After a possessive the last word is a noun ("patient", not the adjective).
    if (!last.tags.has('Noun')) (last.tags as Set<string>).add('Noun');
  }
}

/** A copula between the start of the clause and `before` ("Theo is …"; not "I think Tom's happy"). */
function clauseHasCopula(tokens: Token[], before: number): boolean {
  for (let i = before - 1; i >= 0; i--) {
    const t = tokens[i];
    if (/[,;:]/.test(t.post) || ['and', 'but', 'or', 'who', 'which', 'that', 'because', 'while', 'when'].includes(t.normal)) return false;
    if (t.tags.has('Copula') && t.text !== '') return true;
  }
  return false;
}

/**
 * "Xiaoming lives in Chengdu": compromise reads a capitalized word in -ing that starts a
 * sentence as a gerund. When no verb of the lexicon is its stem and a verb follows, it is a name.
 */
function retagInitialNamesInIng(tokens: Token[]): void {
  const first = tokens[0];
  const next = tokens[1];
  if (!first || !next || !first.tags.has('Gerund') || !/^\p{Lu}/u.test(first.text) || !/ing$/.test(first.normal)) return;
  if (!next.tags.has('Verb') && !next.tags.has('Copula') && !next.tags.has('Auxiliary')) return;
  const stem = first.normal.slice(0, -3);
  const stems = [stem, `${stem}e`, stem.replace(/(.)\1$/, '$1')];
  if (stems.some((word) => stem.length > 0 && lexiconTag(word) !== undefined)) return;
  const tags = first.tags as Set<string>;
  tags.clear();
  for (const tag of ['Noun', 'Singular', 'ProperNoun']) tags.add(tag);
}

/** Adverbs that stand between a clause's subject and its verb ("Jack now lives in York"). */
const SUBJECT_ADVERBS = new Set([...ADVERBS_BETWEEN, 'still', 'currently', 'later', 'then', 'eventually', 'once', 'never', 'no', 'longer']);

/**
 * "Jack now lives in York", "Mark also works at Acme", "Will recently moved to Leeds": a given
 * name that is also a verb, starting a sentence, is read as an imperative. An imperative is not
 * followed by a finite verb ("lives", "moved"), so a capitalized verb before adverbs and a verb
 * in the present's third person or the past is the clause's subject, a name.
 */
function retagInitialNamesReadAsVerbs(tokens: Token[]): void {
  const first = tokens[0];
  if (!first || !/^\p{Lu}\p{Ll}+$/u.test(first.text) || !(first.tags.has('Verb') || first.tags.has('Modal')) || /[,;:]/.test(first.post)) return;
  let j = 1;
  while (j < tokens.length && (tokens[j].tags.has('Adverb') || SUBJECT_ADVERBS.has(tokens[j].normal)) && !/[,;:]/.test(tokens[j].post)) j++;
  const verb = tokens[j];
  if (!verb || verb.tags.has('Infinitive') || verb.tags.has('Gerund')) return;
  const thirdPerson = verb.tags.has('PresentTense') && /[^s]s$/.test(verb.normal);
  const givenName = GIVEN_NAME_TAGS.has(lexiconTag(first.normal) ?? '') || first.tags.has('Modal');
  // ("Will works at Lidl": no adverb between; a modal or a given name before a finite verb.)
  if (j === 1 && !(givenName && (thirdPerson || verb.tags.has('PastTense')))) return;
  const finite = verb.tags.has('Verb') && (verb.tags.has('PastTense') || thirdPerson);
  // "Mark also works at Acme": after the misread name the verb is read as a plural noun; the
  // lexicon knows the word as a given name.
  const misreadVerb = !verb.tags.has('Verb') && verb.tags.has('Plural') && /s$/.test(verb.normal) && givenName;
  if (!finite && !misreadVerb) return;
  const tags = first.tags as Set<string>;
  tags.clear();
  for (const tag of ['Noun', 'Singular', 'ProperNoun']) tags.add(tag);
  if (misreadVerb) {
    const verbTags = verb.tags as Set<string>;
    verbTags.clear();
    for (const tag of ['Verb', 'PresentTense']) verbTags.add(tag);
  }
}

const GIVEN_NAME_TAGS = new Set(['FirstName', 'MaleName', 'FemaleName']);

const GET_FORMS = new Set(['get', 'gets', 'got', 'gotten', 'getting']);

/** "Lou got out of Belmarsh", "got away from": "get" before its particle is the verb, not a passive's auxiliary. */
function retagPhrasalGet(tokens: Token[]): void {
  for (let k = 0; k + 2 < tokens.length; k++) {
    const get = tokens[k];
    if (!GET_FORMS.has(get.normal) || !get.tags.has('Auxiliary') || !tokens[k + 1].tags.has('Particle') || !['of', 'from'].includes(tokens[k + 2].normal)) continue;
    const tags = get.tags as Set<string>;
    tags.delete('Auxiliary');
    tags.add('Verb');
    if (get.normal === 'got' || get.normal === 'gotten') tags.add('PastTense');
  }
}

/**
 * "Dan plays drums in The Foxes", "Mia teaches yoga at …": compromise reads a plural noun right
 * after a verb in the present's third person as a second verb. Two finite verbs do not follow
 * each other in a clause: the second is the first one's object.
 */
function retagObjectsReadAsVerbs(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const verb = tokens[k - 1];
    const word = tokens[k];
    const thirdPerson = (t: Token) => t.tags.has('Verb') && t.tags.has('PresentTense') && !t.tags.has('Auxiliary') && !t.tags.has('Copula') && !t.tags.has('Modal') && /[^s]s$/.test(t.normal);
    if (!thirdPerson(verb) || !thirdPerson(word) || /[,;:]/.test(verb.post) || !/^\p{Ll}/u.test(word.text)) continue;
    const tags = word.tags as Set<string>;
    tags.clear();
    for (const tag of ['Noun', 'Plural']) tags.add(tag);
  }
}

/** Verbs that end a state, which compromise reads as adjectives after a noun ("membership lapsed"). */
const ENDING_PARTICIPLES = new Set(['lapsed', 'expired', 'ended', 'finished', 'concluded', 'terminated']);

/** "Olga's membership of the club lapsed.": after a noun, at the end of its clause, the word is the verb. */
function retagEndingVerbs(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !ENDING_PARTICIPLES.has(tokens[k].normal) || !tokens[k - 1].tags.has('Noun') || /[,;:]/.test(tokens[k - 1].post)) continue;
    const next = tokens[k + 1];
    if (next && !/[.!?;]/.test(tokens[k].post) && !next.tags.has('Preposition') && !next.tags.has('Date') && !next.tags.has('Adverb')) continue;
    tags.delete('Adjective');
    tags.add('Verb');
    tags.add('PastTense');
  }
}

const HOMEWARD_VERBS = new Set(['moved', 'move', 'moves', 'went', 'go', 'goes', 'came', 'come', 'comes', 'returned', 'headed', 'flew', 'moving', 'going', 'coming']);

/** Verbs compromise reads as nouns after "to" ("went to work for Meta", "moved there to study at Bonn"). */
const NOUN_LIKE_VERBS = new Set(['work', 'study', 'live', 'play', 'teach', 'train']);

/** "to work for", "to study at": after "to" and before a preposition the word is the verb. */
function retagInfinitives(tokens: Token[]): void {
  for (let k = 1; k < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    // "Sam and Jo have split", "Mia moved home to Dublin".
    if (tokens[k].normal === 'split' && !tags.has('Verb') && PERFECT_AUXILIARIES.has(tokens[k - 1].normal)) {
      tags.clear();
      for (const tag of ['Verb', 'PastTense']) tags.add(tag);
    }
    if (tokens[k].normal === 'home' && HOMEWARD_VERBS.has(tokens[k - 1].normal)) {
      tags.clear();
      tags.add('Adverb');
    }
  }
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || tokens[k - 1].normal !== 'to' || !NOUN_LIKE_VERBS.has(tokens[k].normal) || !tokens[k + 1].tags.has('Preposition')) continue;
    tags.delete('Noun');
    tags.delete('Singular');
    tags.add('Verb');
    tags.add('Infinitive');
  }
}

const PROGRESSIVE_VERBS = new Set(['stay', 'train', 'volunteer', 'see']);
const BE = new Set(['is', 'are', 'was', 'were', 'be', 'been', "'s", "'re"]);

/**
 * compromise reads "living" in "is living in Marseille" as an adjective ("a living room"): a
 * word in -ing after a form of "be" and before a preposition, whose stem the lexicon knows as a
 * verb, is the progressive of that verb.
 */
function retagProgressives(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !/ing$/.test(tokens[k].normal)) continue;
    let j = k - 1;
    while (j > 0 && tokens[j].tags.has('Adverb')) j--;
    if (!BE.has(tokens[j].normal) || !tokens[k + 1].tags.has('Preposition')) continue;
    const stem = tokens[k].normal.replace(/ing$/, '');
    if (![stem, `${stem}e`].some((word) => STATE_VERBS.has(word) || EVENT_VERBS.has(word) || PROGRESSIVE_VERBS.has(word))) continue;
    tags.delete('Adjective');
    tags.delete('Noun');
    tags.add('Verb');
    tags.add('Gerund');
  }
}

/** "St." before a name: Saint, not Street ("St. Mary's", "St. Thomas' Hospital"). */
export function isSaint(token: Token | undefined): boolean {
  // "St. Mary's", and "St Mary's" as British English writes it (callers check a name follows).
  return token !== undefined && token.text === 'St' && /^\.?\s*$/.test(token.post);
}

/** Term index ranges `[start, end)` of each match of a view. */
export function matchRanges(view: { json(options?: object): unknown }): Array<{ start: number; end: number; text: string }> {
  const out: Array<{ start: number; end: number; text: string }> = [];
  for (const match of view.json({ offset: true, terms: { offset: true } }) as MatchJson[]) {
    const indexes = match.terms.map((t) => t.offset?.index).filter((i): i is number => typeof i === 'number');
    if (indexes.length === 0) continue;
    out.push({ start: Math.min(...indexes), end: Math.max(...indexes) + 1, text: match.text });
  }
  return out;
}

interface VerbTransforms {
  toInfinitive(word: string, model: unknown, tense?: string): string;
  conjugate(infinitive: string, model: unknown): Record<string, string | undefined>;
}

interface World {
  model: { one?: { lexicon?: Record<string, string | string[] | undefined> } } & Record<string, unknown>;
  methods?: { two?: { transform?: { verb?: VerbTransforms } } };
}

let loadedWorld: World | undefined;

/** compromise's world (model and internal methods), from the library once it is loaded. */
function world(): World {
  loadedWorld ??= compromise().world() as World;
  return loadedWorld;
}

const verbTransformsOf = (w: World) => w.methods?.two?.transform?.verb;

/**
 * The tag compromise's own lexicon gives a lowercase word, if it lists it (`Uncountable` for
 * "water", `Singular` for "time", `FemaleName` for "maria"); undefined for a word it only
 * tags by rule ("kwame", "globex").
 */
export function lexiconTag(word: string): string | undefined {
  const entry = world().model.one?.lexicon?.[word];
  return Array.isArray(entry) ? entry[0] : entry;
}

// A gerund is tagged PresentTense too: as a gerund "working" → "work" (as a present it stays "working").
const TENSE_TAGS = ['Gerund', 'PastTense', 'PresentTense', 'Infinitive', 'Participle'];

/**
 * The infinitive of a verb token, through compromise's own conjugation tables (an internal
 * method, reached through `world()`; the specs pin its behaviour). Falls back to the word.
 */
export function verbLemma(token: Token): string {
  const word = token.normal;
  const verbTransforms = verbTransformsOf(world());
  if (!verbTransforms) return word;
  const tense = TENSE_TAGS.find((t) => token.tags.has(t));
  if (tense === 'Infinitive') return word;
  const infinitive = (as: string | undefined) => {
    try {
      return verbTransforms.toInfinitive(word, world().model, as) || word;
    } catch {
      return word;
    }
  };
  if (IRREGULAR_PARTICIPLES[word]) return IRREGULAR_PARTICIPLES[word];
  let lemma = infinitive(tense);
  // "taken", "given": the past tense table does not know participles.
  if (lemma === word && token.tags.has('Participle')) lemma = infinitive('Participle');
  // A verb the tables do not know ("moored"): the regular past.
  if (lemma === word && /[^e]ed$/.test(word) && (token.tags.has('PastTense') || token.tags.has('Participle'))) {
    const stem = word.slice(0, -2);
    lemma = lexiconTag(`${stem}e`) === 'Infinitive' && lexiconTag(stem) !== 'Infinitive' ? `${stem}e` : stem;
  }
  return lemma;
}

/** Participles the conjugation tables turn into non-words ("gone" → "gin"). */
const IRREGULAR_PARTICIPLES: Readonly<Record<string, string>> = { gone: 'go', been: 'be', done: 'do', seen: 'see' };

const conjugations = new Map<string, Record<string, string | undefined>>();

/** Present (third person) and past forms of an infinitive. */
export function verbForms(infinitive: string): { present: string; past: string } {
  let forms = conjugations.get(infinitive);
  if (!forms) {
    try {
      forms = verbTransformsOf(world())?.conjugate(infinitive, world().model) ?? {};
    } catch {
      forms = {};
    }
    conjugations.set(infinitive, forms);
  }
  return { present: forms.PresentTense ?? infinitive, past: forms.PastTense ?? infinitive };
}
