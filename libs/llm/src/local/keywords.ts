import type { Keywords } from '../tasks.types';
import { findDates } from './dates';
import { PRONOUNS, QUESTION_THEMES, STOPWORDS, THEMES, VAGUE_NOUNS, singularNoun } from './lexicon';
import { findMentions } from './mentions';
import { parseText, verbLemma, type Token } from './nlp';
import { normalizeWhitespace } from './sentences';

/**
 * Query keywords without a model, for the retrieval modes that search entities (low level)
 * and relations/themes (high level):
 *
 * - `low_level`: the names in the question (people, organizations, places, other proper
 *   nouns), the dates it names, and its noun phrases without articles or possessives
 *   ("Alice's new job" → "new job"), as written;
 * - `high_level`: themes, lowercased — for each verb and noun, the theme it belongs to when the
 *   lexicon knows one ("work" → "employment", "move" → "relocation"), then the verb itself in
 *   its infinitive ("work"), then the head noun of each noun phrase in the singular ("effects
 *   of climate change" → "effect", "change"), then what the question word asks for ("where" →
 *   "location", "when" → "time").
 *
 * Both lists drop stopwords, pronouns and duplicates (case-insensitive), keeping first order.
 * A question with nothing recognisable falls back to its content words as `low_level`.
 */
export function keywordsLocally(question: string): Keywords {
  const text = normalizeWhitespace(question);
  if (!text) return { high_level: [], low_level: [] };
  const parsed = parseText(text);
  const dates = findDates(parsed);
  const dateTokens = new Set<number>();
  for (const d of dates) for (let i = d.start; i < d.end; i++) dateTokens.add(i);
  const mentions = findMentions(parsed, (i) => dateTokens.has(i));
  const inName = new Set<number>();
  for (const m of mentions) for (let i = m.start; i < m.end; i++) inName.add(i);

  const low = new KeywordList();
  const themes = new KeywordList();
  const verbs = new KeywordList();
  const heads = new KeywordList();
  const asks = new KeywordList();

  for (const m of mentions) low.add(m.name);
  for (const d of dates) low.add(d.text);

  for (const sentence of parsed.sentences) {
    const toks = sentence.tokens;
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k];
      if (inName.has(t.index) || dateTokens.has(t.index)) continue;
      const asked = QUESTION_THEMES[t.normal];
      if (asked) asks.add(asked);
      if (isContentVerb(t)) {
        const lemma = verbLemma(t);
        const theme = THEMES[lemma];
        if (theme) themes.add(theme);
        verbs.add(lemma);
        continue;
      }
      if (!isPhraseWord(t)) continue;
      if (isDoSupportVerb(toks, k, inName)) {
        // "Where does Alice work?": the tagger reads the bare verb after "does Alice" as a noun.
        const theme = THEMES[t.normal];
        if (theme) themes.add(theme);
        verbs.add(t.normal);
        continue;
      }
      let r = k;
      while (r < toks.length && isPhraseWord(toks[r]) && !inName.has(toks[r].index) && !dateTokens.has(toks[r].index)) {
        r++;
        if (/[,;:?!.]/.test(toks[r - 1].post)) break;
      }
      const phrase = toks.slice(k, r);
      const nouns = phrase.filter((p) => p.tags.has('Noun'));
      if (nouns.length > 0) {
        low.add(phrase.map((p) => p.text).join(' '));
        for (const noun of nouns) {
          const theme = THEMES[singularNoun(noun.normal)];
          if (theme) themes.add(theme);
        }
        // A compound of nouns is a theme of its own ("climate change"); else the head noun.
        const compound = phrase.length > 1 && phrase.length <= 3 && phrase.every((p) => p.tags.has('Noun'));
        heads.add(compound ? phrase.map((p) => p.normal).join(' ') : singularNoun(nouns[nouns.length - 1].normal));
      }
      k = r - 1;
    }
  }

  let lowLevel = low.values().filter((w) => !isStop(w));
  const highLevel = new KeywordList();
  // Themes and question themes come from curated lists; verbs and heads are filtered.
  for (const w of themes.values()) highLevel.add(w);
  for (const list of [verbs, heads]) for (const w of list.values()) if (!isStop(w)) highLevel.add(w);
  for (const w of asks.values()) highLevel.add(w);
  if (lowLevel.length === 0 && highLevel.size === 0) {
    lowLevel = new KeywordList()
      .addAll(parsed.tokens.filter((t) => t && t.normal.length >= 3 && !isStop(t.normal)).map((t) => t.normal))
      .values();
  }
  return { high_level: highLevel.values(), low_level: lowLevel };
}

class KeywordList {
  private readonly seen = new Set<string>();
  private readonly items: string[] = [];

  add(value: string): this {
    const clean = normalizeWhitespace(value.replace(/['’]s\b/gu, '').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
    const key = clean.toLowerCase();
    if (clean && !this.seen.has(key)) {
      this.seen.add(key);
      this.items.push(clean);
    }
    return this;
  }

  addAll(values: string[]): this {
    values.forEach((v) => this.add(v));
    return this;
  }

  get size(): number {
    return this.items.length;
  }

  values(): string[] {
    return [...this.items];
  }
}

const GENERIC_VERBS = new Set(['be', 'have', 'do', 'get', 'tell', 'know', 'say', 'let', 'show', 'give', 'find', 'mean', 'happen', 'think']);

function isContentVerb(t: Token): boolean {
  if (!t.tags.has('Verb') || t.tags.has('Auxiliary') || t.tags.has('Copula') || t.tags.has('Modal')) return false;
  return !GENERIC_VERBS.has(verbLemma(t));
}

function isPhraseWord(t: Token): boolean {
  if (t.tags.has('Pronoun') || t.tags.has('Determiner') || t.tags.has('QuestionWord') || t.tags.has('Preposition')) return false;
  if (t.tags.has('Conjunction') || t.tags.has('Verb') || PRONOUNS.has(t.normal) || STOPWORDS.has(t.normal)) return false;
  return t.tags.has('Noun') || t.tags.has('Adjective') || t.tags.has('Value');
}

const DO_SUPPORT = new Set(['do', 'does', 'did', 'will', 'would', 'can', 'could', 'should', 'shall', 'may', 'might']);

/** A lone word right after "does/did/can + a name or pronoun" is the question's main verb. */
function isDoSupportVerb(toks: Token[], k: number, inName: Set<number>): boolean {
  const t = toks[k];
  const next = toks[k + 1];
  if (t.tags.has('Plural') || /['’]s$/.test(t.text)) return false;
  if (next && isPhraseWord(next) && !/[,;:?!.]/.test(t.post)) return false;
  let j = k - 1;
  while (j >= 0 && toks[j].tags.has('Adverb')) j--;
  const previous = toks[j];
  if (!previous || !(inName.has(previous.index) || previous.tags.has('Pronoun'))) return false;
  const auxiliary = toks.slice(0, j).find((w) => DO_SUPPORT.has(w.normal));
  if (!auxiliary) return false;
  // "Can Alice be happy?" has an adjective there; after do/does/did it is the verb.
  return !t.tags.has('Adjective') || ['do', 'does', 'did'].includes(auxiliary.normal);
}

function isStop(word: string): boolean {
  const lower = word.toLowerCase();
  return STOPWORDS.has(lower) || PRONOUNS.has(lower) || VAGUE_NOUNS.has(lower) || !/[\p{L}\p{N}]/u.test(lower);
}

