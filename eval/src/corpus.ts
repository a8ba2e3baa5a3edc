import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** One passage of the development set: ingested as one document named by its title. */
export interface Passage {
  title: string;
  text: string;
  /** YYYY-MM-DD: the document date it is ingested with (a conversation's session date); none for HotpotQA. */
  date?: string;
}

export interface Question {
  id: string;
  question: string;
  answer: string;
  supporting_titles: string[];
  type: string;
  level: string;
}

export interface EvalSet {
  folder: string;
  passages: Passage[];
  questions: Question[];
}

/** `../shared/eval/hotpotqa-100` beside the repository (where CI and every machine have it). */
export function defaultCorpusFolder(repoRoot: string): string {
  return resolve(repoRoot, '..', 'shared', 'eval', 'hotpotqa-100');
}

export function loadEvalSet(folder: string): EvalSet {
  for (const file of ['corpus.json', 'questions.json']) {
    if (!existsSync(join(folder, file))) throw new Error(`${join(folder, file)} is missing (the HotpotQA-100 development set; see its README)`);
  }
  const passages = JSON.parse(readFileSync(join(folder, 'corpus.json'), 'utf8')) as Passage[];
  const questions = JSON.parse(readFileSync(join(folder, 'questions.json'), 'utf8')) as Question[];
  return { folder, passages, questions };
}

/**
 * The questions and passages of a run. Without a limit: everything. With `limit`: the first
 * `limit` questions, their gold passages, and the first `distractors` other passages in corpus
 * order (a fixed sample, so the smoke's store is the same every time and its cache reusable).
 */
export function sampleEvalSet(set: EvalSet, limit: number | undefined, distractors: number): EvalSet {
  if (limit === undefined || limit >= set.questions.length) return set;
  const questions = set.questions.slice(0, limit);
  const gold = new Set(questions.flatMap((q) => q.supporting_titles));
  const others = set.passages.filter((p) => !gold.has(p.title)).slice(0, distractors);
  const chosen = new Set([...gold, ...others.map((p) => p.title)]);
  return { folder: set.folder, questions, passages: set.passages.filter((p) => chosen.has(p.title)) };
}

/**
 * The text a passage is ingested as, and the text BM25 indexes: the title on its own line, then
 * the paragraph. Loci indexes chunk text, not document names, so the title must be in the text
 * for both rankers to see the same words.
 */
export function passageText(passage: Passage): string {
  return `${passage.title}\n\n${passage.text}`;
}

/** Identifies what is ingested: the passages' titles and texts, in order. */
export function passagesHash(passages: Passage[]): string {
  const hash = createHash('sha256');
  // A date is hashed only where there is one, so that HotpotQA's stores keep their keys.
  for (const p of passages) {
    hash.update(p.title).update('\0').update(p.text).update('\0');
    if (p.date) hash.update(p.date).update('\0');
  }
  return hash.digest('hex');
}
