import type { DatesMethods } from 'compromise-dates';
import { compromise, type Nlp } from './compromise';
import { retagMonths } from './month-retags';
import { retagSentence } from './retags';
import { looksCapitalized } from './words';

export { lexiconTag, verbForms, verbLemma } from './conjugation';
export { isSaint, looksCapitalized } from './words';

/**
 * The one place that loads the NLP library (compromise, with its dates plugin). Everything else
 * in the local provider works on the plain `Token`s built here, so the library's object model
 * stays in this file, `mentions.ts` and `conjugation.ts` (its lexicon and verb tables); the
 * corrections to its tags are in `retags.ts`.
 *
 * compromise ships its lexicon and rules inside the package: nothing is downloaded at run time.
 * It is synchronous and English-only, and loaded on first use (`compromise.ts`).
 */
export type Doc = ReturnType<Nlp> & DatesMethods;

export function parse(text: string): Doc {
  const doc = compromise()<DatesMethods>(text);
  retagMonths(doc);
  return doc;
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
    retagSentence(sentenceTokens);
    sentences.push({ index: sentenceOffset + s, text: sentenceJson.text.trim(), tokens: sentenceTokens });
  });
  return { doc, sentences, tokens };
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
