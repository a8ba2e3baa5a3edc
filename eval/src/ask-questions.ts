import { countTokens } from '../../libs/llm/src/metering/token-counter';
import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import { Question } from './corpus';
import { LociClient } from './loci-client';
import { containsAnswer } from './metrics';

/** What one question asked in one mode brought back. */
export interface AskedQuestion {
  id: string;
  mode: RetrievalMode;
  /** metadata.mode of the context reply: the mode the server actually searched with. */
  mode_used: string;
  no_answer_reason: string | null;
  /** Document names (passage titles) of the context chunks, in rank order, one per chunk. */
  titles: string[];
  chunks: number;
  /** o200k tokens of the chunks' text (the counter Loci's budgets use). */
  tokens: number;
  /** Wall time of the context request, as the client saw it. */
  latency_ms: number;
  /** The dashboard answer, when asked for: whether it contains the gold answer. */
  answer_contains: boolean | null;
  answer_latency_ms: number | null;
  /** Per context budget asked (`max_total_tokens`), the document names of its chunks, in rank order. */
  budget_titles: Record<string, string[]>;
}

export interface AskOptions {
  /** Also ask for a written answer (the local answerer) and check it for the gold answer. */
  answers: boolean;
  /** Also ask for the context at each of these `max_total_tokens` (what a client with a small model gets). */
  budgets: number[];
  log: (line: string) => void;
}

/**
 * Asks every question in one mode as the dashboard user: first in context mode (the ranking
 * measured), then, if asked, for a written answer. A dashboard session, not an API key, because
 * an API-key question without both keyword lists is searched in naive mode whatever mode it
 * names (the contract's ADR-082), while a dashboard question gets its keywords from Loci's own
 * keywords stage (offline, cost 0) and is searched in the mode it asks for.
 */
export async function askQuestions(user: LociClient, questions: Question[], mode: RetrievalMode, options: AskOptions): Promise<AskedQuestion[]> {
  const asked: AskedQuestion[] = [];
  for (const [i, q] of questions.entries()) {
    const t0 = performance.now();
    const reply = await user.query(q.question, mode, true);
    const latency = performance.now() - t0;
    const chunks = reply.context?.chunks ?? [];
    const budgetTitles: Record<string, string[]> = {};
    for (const budget of options.budgets) {
      const bounded = await user.query(q.question, mode, true, { max_total_tokens: budget });
      budgetTitles[String(budget)] = (bounded.context?.chunks ?? []).map((c) => c.document_name ?? '');
    }
    let answerContains: boolean | null = null;
    let answerLatency: number | null = null;
    if (options.answers) {
      const a0 = performance.now();
      const written = await user.query(q.question, mode, false);
      answerLatency = Math.round(performance.now() - a0);
      answerContains = containsAnswer(written.answer, q.answer);
    }
    asked.push({
      id: q.id,
      mode,
      mode_used: reply.metadata.mode,
      no_answer_reason: reply.metadata.no_answer_reason ?? null,
      titles: chunks.map((c) => c.document_name ?? ''),
      chunks: chunks.length,
      tokens: chunks.reduce((n, c) => n + countTokens(c.text), 0),
      latency_ms: Math.round(latency * 10) / 10,
      answer_contains: answerContains,
      answer_latency_ms: answerLatency,
      budget_titles: budgetTitles,
    });
    if ((i + 1) % 25 === 0) options.log(`  ${mode}: ${i + 1}/${questions.length} questions`);
  }
  return asked;
}
