import type { Embedder } from '../model.types';
import type { Answer, CitableSource } from '../tasks.types';
import { namesAny, namesInQuestion, sentenceKey } from './question-names';
import { splitSentences } from './sentences';

/**
 * The offline answerer: no text is generated. The sources are split into sentences, the
 * question and the sentences are embedded with the given embedder, and the sentences closest
 * to the question (cosine similarity) are the answer, in the order the sources were given
 * (retrieval order) and, within a source, in text order; a picked sentence that opens with a
 * pronoun brings the sentence before it along. When the question names someone or something
 * and some sentence names it too, only such sentences may answer: word overlap alone answered
 * "Where does Alice live now?" with "Fay Lin lives in Lisbon.". A sentence is used once, however
 * often the sources repeat it (a fact, its entity and its chunk often state the same sentence).
 * `cited` lists the sources those sentences came from, each once, in order of first use.
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
/** A sentence must also reach this share of the best sentence's similarity. */
export const ANSWER_RELATIVE_FLOOR = 0.8;
/** At most this many sentences make an answer. */
export const ANSWER_MAX_SENTENCES = 3;
/** Sentences considered at most (in source order), to bound one embedding call. */
export const ANSWER_MAX_CANDIDATES = 512;
/** Longer sentences are cut into pieces of this size before embedding. */
const SENTENCE_MAX_CHARS = 500;
const EMBED_TIMEOUT_MS = 30_000;

interface Candidate {
  sourceIndex: number;
  sentenceIndex: number;
  sourceId: string;
  text: string;
  score: number;
}

export async function answerLocally(question: string, sources: CitableSource[], embedder: Embedder): Promise<Answer> {
  const noInformation: Answer = { answer: LOCAL_NO_INFORMATION_ANSWER, cited: [] };
  if (!question.trim() || sources.length === 0) return noInformation;

  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  sources.forEach((source, sourceIndex) => {
    splitSentences(source.text, { maxChars: SENTENCE_MAX_CHARS }).forEach((text, sentenceIndex) => {
      const key = sentenceKey(text);
      if (seen.has(key) || candidates.length >= ANSWER_MAX_CANDIDATES) return;
      seen.add(key);
      candidates.push({ sourceIndex, sentenceIndex, sourceId: source.id, text, score: 0 });
    });
  });
  if (candidates.length === 0) return noInformation;

  const { vectors } = await embedder.embed({ texts: [question, ...candidates.map((c) => c.text)], timeoutMs: EMBED_TIMEOUT_MS });
  const [questionVector, ...sentenceVectors] = vectors;
  candidates.forEach((c, i) => {
    c.score = cosine(questionVector, sentenceVectors[i]);
  });

  const names = namesInQuestion(question);
  const naming = candidates.filter((c) => namesAny(c.text, names) || namesAny(antecedentOf(c, candidates)?.text ?? '', names));
  const eligible = naming.length > 0 ? naming : candidates;
  const ranked = eligible
    .filter((c) => c.score >= ANSWER_SIMILARITY_FLOOR)
    .sort((a, b) => b.score - a.score || a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex);
  if (ranked.length === 0) return noInformation;
  const best = ranked[0].score;
  const picked = ranked
    .filter((c) => c.score >= best * ANSWER_RELATIVE_FLOOR)
    .slice(0, ANSWER_MAX_SENTENCES)
    .sort((a, b) => a.sourceIndex - b.sourceIndex || a.sentenceIndex - b.sentenceIndex);

  const withContext = addAntecedents(picked, candidates);
  const cited: string[] = [];
  for (const c of withContext) if (!cited.includes(c.sourceId)) cited.push(c.sourceId);
  return { answer: withContext.map((c) => ensureStop(c.text)).join(' '), cited };
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
