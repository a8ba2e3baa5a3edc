import type { RetrievalMode } from '../../libs/retrieval/src/retrieval.types';
import type { BenchQuestion } from '../questions';
import { HttpTarget, jsonHeaders, loadHttp } from './http-load';
import { CellResult, CheckResult, QuestionCursor, queryBody } from './types';

export type { HttpTarget } from './http-load';

/**
 * `POST /v1/query` as an API-key client asks it: context_only, both keyword lists (so no model
 * is asked for keywords), one mode per cell. The load comes from autocannon in this process,
 * over loopback, to an API in another process (or, in the CI smoke, an app in this one).
 */

/** Sequential pass: every mode answers 200, and the answer edge's target shows up in the context. */
export async function checkContext(target: HttpTarget, questions: BenchQuestion[], mode: RetrievalMode, count: number): Promise<CheckResult> {
  let ok = 0;
  let found = 0;
  let bytes = 0;
  const asked = questions.slice(0, Math.min(count, questions.length));
  for (const question of asked) {
    const response = await fetch(`${target.url}/v1/query`, { method: 'POST', headers: jsonHeaders(target), body: queryBody(question, mode) });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST /v1/query (${mode}) answered ${response.status}: ${text.slice(0, 500)}`);
    ok++;
    bytes += Buffer.byteLength(text);
    if (text.includes(question.answer.target)) found++;
  }
  return { scenario: 'query-context', mode, requests: asked.length, ok, answer_found: round(found / Math.max(1, asked.length)), mean_bytes: Math.round(bytes / Math.max(1, ok)) };
}

export async function runContextCell(
  target: HttpTarget,
  questions: BenchQuestion[],
  mode: RetrievalMode,
  concurrency: number,
  durationS: number,
): Promise<CellResult> {
  const cursor = new QuestionCursor(questions);
  const load = await loadHttp(target, '/v1/query', () => queryBody(cursor.next(), mode), concurrency, durationS);
  return { scenario: 'query-context', mode, concurrency, ...load };
}

const round = (x: number) => Math.round(x * 100) / 100;
