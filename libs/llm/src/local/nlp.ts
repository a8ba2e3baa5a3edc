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
  return token !== undefined && token.text === 'St' && /^\.\s*$/.test(token.post);
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
