import type { RetrievalMode } from '@loci/retrieval';
import type { BenchQuestion } from '../questions';
import type { LatencySummary } from '../stats';

export type QueryScenario = 'query-context' | 'query-floor';

/** One measured cell: a scenario at one mode and one concurrency. */
export interface CellResult {
  scenario: QueryScenario;
  mode: RetrievalMode;
  concurrency: number;
  duration_s: number;
  /** Successful requests measured. */
  requests: number;
  /** Failed requests (non-2xx, connection errors, SQL errors); not in the latencies. */
  errors: number;
  throughput_rps: number;
  latency_ms: LatencySummary;
  /** query-context with the API as a child process: its CPU time (user + system) per successful request. */
  api_cpu_ms_per_request?: number;
  /** query-context: the database backends' CPU time on the bench database per successful request. */
  db_cpu_ms_per_request?: number;
  /** query-context on another build's API (--api-main); absent: this checkout's. */
  build?: 'baseline';
}

/** A sequential pass before the load: proves each mode answers and warms caches. */
export interface CheckResult {
  scenario: QueryScenario;
  mode: RetrievalMode;
  requests: number;
  ok: number;
  /** Share of answers whose material names the answer edge's target entity. */
  answer_found: number;
  /** Mean size of what came back (response body bytes; floor: JSON of the rows). */
  mean_bytes: number;
  /** query-context on another build's API (--api-main); absent: this checkout's. */
  build?: 'baseline';
}

/** Hands out questions round-robin to every worker of a cell, so pairs see the same sequence. */
export class QuestionCursor {
  private at = 0;

  constructor(private readonly questions: readonly BenchQuestion[]) {
    if (questions.length === 0) throw new Error('no questions');
  }

  next(): BenchQuestion {
    return this.questions[this.at++ % this.questions.length];
  }
}

/** The /v1/query body of a context-mode question with both keyword lists. */
/** A question's body; keyword lists that are both empty are left out, for the API to read them. */
export function queryBody(question: BenchQuestion, mode: RetrievalMode): string {
  const keywords = question.hl_keywords.length + question.ll_keywords.length > 0 ? { hl_keywords: question.hl_keywords, ll_keywords: question.ll_keywords } : {};
  return JSON.stringify({ query: question.query, mode, context_only: true, ...keywords });
}
