import type { DatesMethods } from 'compromise-dates';
import { compromise, type Nlp } from './compromise';

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
    sentences.push({ index: sentenceOffset + s, text: sentenceJson.text.trim(), tokens: sentenceTokens });
  });
  return { doc, sentences, tokens };
}

const COORDINATORS = new Set(['and', 'then', 'but', 'later']);

/**
 * compromise reads the second verb of "left Acme and joined Globex" as an adjective ("joined
 * Globex" like "joined hands"), which lost every second event of a sentence. A past-looking
 * word after a coordinator and before a name is the verb of a new clause.
 */
function retagCoordinatedPastVerbs(tokens: Token[]): void {
  for (let k = 1; k + 1 < tokens.length; k++) {
    const tags = tokens[k].tags as Set<string>;
    if (tags.has('Verb') || !tags.has('Adjective') || !/ed$/.test(tokens[k].normal)) continue;
    if (!COORDINATORS.has(tokens[k - 1].normal) || !tokens[k + 1].tags.has('ProperNoun')) continue;
    tags.delete('Adjective');
    tags.add('Verb');
    tags.add('PastTense');
  }
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
  model: unknown;
  methods?: { two?: { transform?: { verb?: VerbTransforms } } };
}

let loadedWorld: World | undefined;

/** compromise's world (model and internal methods), from the library once it is loaded. */
function world(): World {
  loadedWorld ??= compromise().world() as World;
  return loadedWorld;
}

const verbTransformsOf = (w: World) => w.methods?.two?.transform?.verb;

const TENSE_TAGS = ['PastTense', 'PresentTense', 'Gerund', 'Infinitive', 'Participle'];

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
  try {
    return verbTransforms.toInfinitive(word, world().model, tense) || word;
  } catch {
    return word;
  }
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
