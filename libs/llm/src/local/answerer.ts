import type { Embedder } from '../model.types';
import type { Answer, CitableSource } from '../tasks.types';
import { PRONOUNS, STOPWORDS } from './lexicon';
import { namesAny, namesInQuestion, sentenceKey } from './question-names';
import { splitSentences } from './sentences';

/**
 * The offline answerer: no text is generated. The sources are split into sentences (and an
 * entity description's joined statements into statements), the question and the sentences are
 * embedded with the given embedder, and each sentence is scored by the share of the question's
 * term weight it holds (IDF over the sentences in context, so the question's rare words count
 * most) plus its cosine similarity to the question. The answer is the best sentence and up to two
 * more that add what it lacks (pickSentences), in the order the sources were given (retrieval
 * order) and, within a source, in text order; a picked sentence that opens with a pronoun brings
 * the sentence before it along. When the question names someone or something and some sentence
 * names it too, the best sentence must be such a sentence: word overlap alone answered "Where does
 * Alice live now?" with "Fay Lin lives in Lisbon.". A sentence is used once, however often the
 * sources repeat it (a fact, its entity and its chunk often state the same sentence), and a
 * sentence that mostly repeats one already picked is not picked. `cited` lists the sources those
 * sentences came from, each once, in order of first use.
 */

/** The answer when nothing in the sources is close enough to the question (the gb contract's wording). */
export const LOCAL_NO_INFORMATION_ANSWER = "I don't have any information in memory to answer that.";

/**
 * Cosine similarity a sentence needs to be part of an answer. Tuned for `local-hash-v1`, whose
 * cosine between texts with no word or word piece in common is about 0 (±0.05) and between a
 * question and a sentence that answers it is typically 0.35–0.75 ("Where does Alice work?" vs
 * "Alice works at Acme" is 0.73). Dense embedders score unrelated text higher (0.1–0.3), so
 * with them this floor lets more through; the relative floor below still keeps answers short.
 */
export const ANSWER_SIMILARITY_FLOOR = 0.2;
/** A further sentence scoring this share of the best sentence's score joins the answer whatever it adds. */
export const ANSWER_RELATIVE_FLOOR = 0.8;
/** Weight of the embedding similarity beside the share of the question's term weight a sentence holds. */
export const COSINE_WEIGHT = 0.5;
/** A sentence holding this share of the question's term weight may answer whatever its cosine. */
export const ANSWER_LEXICAL_FLOOR = 0.3;
/** What a further sentence must add (uncovered question weight, bridged names) to join the answer. */
export const ANSWER_MIN_GAIN = 0.15;
/** Weight of the names a picked sentence brought in (the next hop) for the next pick. */
export const BRIDGE_WEIGHT = 0.5;
/** A sentence whose terms are this share or more of a picked sentence's repeats it. */
export const ANSWER_REPEAT_SHARE = 0.8;
/** At most this many sentences make an answer. */
export const ANSWER_MAX_SENTENCES = 3;
/** Sentences considered at most (in source order), to bound one embedding call. */
export const ANSWER_MAX_CANDIDATES = 512;
/** Longer sentences are cut into pieces of this size before embedding. */
const SENTENCE_MAX_CHARS = 500;
/**
 * Statements joined by "; " before a capital (an entity's description is its mentions' sentences
 * so joined: "Circus Diablo: …; Morrison previously fronted …") are candidates of their own.
 */
const JOINED_STATEMENTS = /;\s+(?=["“(]?\p{Lu})/u;
const EMBED_TIMEOUT_MS = 30_000;

interface Candidate {
  sourceIndex: number;
  sentenceIndex: number;
  sourceId: string;
  kind?: CitableSource['kind'];
  text: string;
  score: number;
}

export async function answerLocally(question: string, sources: CitableSource[], embedder: Embedder): Promise<Answer> {
  const noInformation: Answer = { answer: LOCAL_NO_INFORMATION_ANSWER, cited: [] };
  if (!question.trim() || sources.length === 0) return noInformation;

  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  sources.forEach((source, sourceIndex) => {
    splitSentences(source.text, { maxChars: SENTENCE_MAX_CHARS })
      .flatMap((sentence) => sentence.split(JOINED_STATEMENTS))
      .map((text) => text.trim())
      .filter((text) => text.length > 0)
      .forEach((text, sentenceIndex) => {
      const key = sentenceKey(text);
      if (seen.has(key) || candidates.length >= ANSWER_MAX_CANDIDATES) return;
      seen.add(key);
      candidates.push({ sourceIndex, sentenceIndex, sourceId: source.id, kind: source.kind, text, score: 0 });
    });
  });
  if (candidates.length === 0) return noInformation;

  const { vectors } = await embedder.embed({ texts: [question, ...candidates.map((c) => c.text)], timeoutMs: EMBED_TIMEOUT_MS });
  const [questionVector, ...sentenceVectors] = vectors;
  candidates.forEach((c, i) => {
    c.score = cosine(questionVector, sentenceVectors[i]);
  });

  const names = namesInQuestion(question);
  const picked = pickSentences(question, names, candidates);
  if (picked.length === 0) return noInformation;

  const withContext = addAntecedents(picked, candidates);
  const cited: string[] = [];
  for (const c of withContext) if (!cited.includes(c.sourceId)) cited.push(c.sourceId);
  return { answer: withContext.map((c) => ensureStop(c.text)).join(' '), cited };
}

/**
 * The sentences that answer, in source order. Each candidate is scored by how much of the
 * question's weight it holds (its rare words count most: IDF over the sentences in context, so
 * "formed" outweighs "band" where every passage is about bands) plus its embedding similarity.
 * A sentence that says nothing beyond the question's own words (a title line, a bare name)
 * cannot answer. When the question names someone or something and some sentence names it too,
 * the first pick must be such a sentence. Later picks are chosen for what the answer does not
 * hold yet: the question's words still uncovered ("…, The Exies or Circus Diablo?" takes a
 * sentence about each) and the names the picked sentences brought in (the second hop: "the
 * album by M. Ward" → a sentence about Ward); a sentence that mostly repeats a picked one
 * (an entity's description restating its passage) is skipped, and of sentences that say the
 * same thing the first in source order (facts, then passages, then entities) is the one used.
 */
function pickSentences(question: string, names: string[], candidates: Candidate[]): Candidate[] {
  const questionTerms = [...new Set(contentTerms(question))];
  const terms = candidates.map((c) => new Set(contentTerms(c.text)));
  const df = new Map<string, number>();
  for (const set of terms) for (const t of set) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => Math.log(1 + candidates.length / (1 + (df.get(t) ?? 0)));
  const questionWeight = questionTerms.reduce((sum, t) => sum + idf(t), 0) || 1;
  const asked = new Set(questionTerms);
  const weightOf = (set: Set<string>, wanted: (t: string) => boolean) => {
    let w = 0;
    for (const t of set) if (wanted(t)) w += idf(t);
    return w / questionWeight;
  };

  // Sentences that say the same thing (each mostly the other's words: a fact, its entity's
  // description and the passage it came from) count once, as the first in source order.
  const restates = (i: number) => terms.slice(0, i).some((earlier) => repeats(terms[i], earlier) && repeats(earlier, terms[i]));
  const scored = candidates.map((c, i) => {
    const lexical = weightOf(terms[i], (t) => asked.has(t));
    const novel = [...terms[i]].some((t) => !asked.has(t)) && !restates(i);
    const namesAsked = names.length === 0 || namesAny(c.text, names) || namesAny(antecedentOf(c, candidates)?.text ?? '', names);
    return { c, i, lexical, novel, namesAsked, score: lexical + COSINE_WEIGHT * c.score };
  });
  const eligible = scored.filter((s) => s.novel && (s.c.score >= ANSWER_SIMILARITY_FLOOR || s.lexical >= ANSWER_LEXICAL_FLOOR));
  if (eligible.length === 0) return [];
  const anchors = eligible.some((s) => s.namesAsked) ? eligible.filter((s) => s.namesAsked) : eligible;
  const byScore = (a: (typeof scored)[number], b: (typeof scored)[number]) =>
    b.score - a.score || a.c.sourceIndex - b.c.sourceIndex || a.c.sentenceIndex - b.c.sentenceIndex;
  const first = [...anchors].sort(byScore)[0];

  const picked = [first];
  // A description keeps what was once said ("works at Acme" after she joined Globex), a fact
  // only what is true at the instant asked: an answer drawn from a description says what the
  // facts about the entity asked say too, the best of them.
  const fact = first.c.kind === 'description' ? anchors.filter((s) => s.c.kind === 'fact' && s.namesAsked).sort(byScore)[0] : undefined;
  if (fact) picked.push(fact);
  const covered = new Set(picked.flatMap((s) => [...terms[s.i]]).filter((t) => asked.has(t)));
  const bridges = new Set(picked.flatMap((s) => namesIn(s.c.text)).filter((t) => !asked.has(t)));
  while (picked.length < ANSWER_MAX_SENTENCES) {
    const open = weightOf(asked, (t) => !covered.has(t));
    const bridgeWeight = weightOf(bridges, () => true) || 1;
    let best: { s: (typeof scored)[number]; gain: number } | undefined;
    // Later sentences need not resemble the question by themselves: they add to the answer.
    for (const s of scored) {
      if (!s.novel || picked.includes(s) || picked.some((p) => repeats(terms[s.i], terms[p.i]))) continue;
      const fresh = weightOf(terms[s.i], (t) => asked.has(t) && !covered.has(t));
      if (!s.namesAsked && ![...terms[s.i]].some((t) => bridges.has(t))) continue;
      // A next hop only while the question still asks something the answer does not hold.
      const bridged = open >= ANSWER_MIN_GAIN ? (BRIDGE_WEIGHT * weightOf(terms[s.i], (t) => bridges.has(t))) / bridgeWeight : 0;
      const gain = fresh + bridged + (s.score >= first.score * ANSWER_RELATIVE_FLOOR ? s.score : 0);
      if (gain >= ANSWER_MIN_GAIN && (!best || gain > best.gain)) best = { s, gain };
    }
    if (!best) break;
    picked.push(best.s);
    for (const t of terms[best.s.i]) if (asked.has(t)) covered.add(t);
    for (const t of namesIn(best.s.c.text)) if (!asked.has(t)) bridges.add(t);
  }
  return picked.map((s) => s.c).sort((a, b) => a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex);
}

/** The words that carry meaning, lowercased, without a possessive or plural "s": "Alice's bands" → alice, band. */
export function contentTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return words
    .map((w) => w.replace(/['’]s?$/u, ''))
    .filter((w) => !STOPWORDS.has(w) && !PRONOUNS.has(w))
    .map((w) => (w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w));
}

/** The capitalised words of a sentence past its first word, as content terms. */
function namesIn(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  return words.slice(1).filter((w) => /^\p{Lu}/u.test(w)).flatMap((w) => contentTerms(w));
}

/** Whether a sentence mostly says what another already says (most of its terms are in it). */
function repeats(candidate: Set<string>, picked: Set<string>): boolean {
  if (candidate.size === 0) return true;
  let shared = 0;
  for (const t of candidate) if (picked.has(t)) shared++;
  return shared / candidate.size >= ANSWER_REPEAT_SHARE;
}

const LEADING_PRONOUN = /^(?:he|she|they|it|his|her|their|its|this|these|those|the company|the firm)\b/i;

/**
 * "He works for Globex." alone does not say who: a picked sentence that opens with a pronoun
 * brings the sentence before it in the same source along.
 */
function addAntecedents(picked: Candidate[], all: Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  for (const c of picked) {
    const previous = antecedentOf(c, all);
    if (previous && !out.includes(previous) && !picked.includes(previous)) out.push(previous);
    out.push(c);
  }
  return out;
}

/** The sentence a pronoun-led sentence leans on: the one before it in its source. */
function antecedentOf(c: Candidate, all: Candidate[]): Candidate | undefined {
  if (!LEADING_PRONOUN.test(c.text) || c.sentenceIndex === 0) return undefined;
  return all.find((p) => p.sourceIndex === c.sourceIndex && p.sentenceIndex === c.sentenceIndex - 1);
}

function ensureStop(sentence: string): string {
  return /[.!?…"'”’)]$/u.test(sentence) ? sentence : `${sentence}.`;
}

/** Cosine similarity; 0 when either vector is all zeros or they differ in length. */
export function cosine(a: number[] | undefined, b: number[] | undefined): number {
  if (!a || !b || a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
