import { Client } from 'pg';
import type { BenchQuestion, QuestionsFile } from '../questions';
import { HttpLoadResult, HttpTarget, jsonHeaders, loadHttp } from './http-load';
import { QuestionCursor } from './types';

/**
 * `gb-query`: `POST /v1/gb/query` with the seeded API key against the large tenant's gb dataset
 * (bench:seed --gb-edges), the `query` stage answered at once by the LLM double, so the figure
 * is Loci's own cost: auth, admission, keyword seeds, the four vector searches, one hop,
 * passages, the prompt, the SDK round trip on loopback, evidence, request log.
 */

export interface GbCell extends HttpLoadResult {
  scenario: 'gb-query';
  concurrency: number;
  /** The trajectory's steps of the requests of this cell (request_logs), per step name. */
  steps: GbStepTiming[];
}

export interface GbStepTiming {
  name: string;
  requests: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
}

export interface GbCheck {
  scenario: 'gb-query';
  requests: number;
  ok: number;
  /** Share of questions whose answer entity was in the context sent to the model. */
  answer_in_context: number;
  /** Share answered without asking the model (nothing retrieved: the contract's fixed answer). */
  no_information: number;
  mean_bytes: number;
}

export interface GbTarget extends HttpTarget {
  userId: string;
  dataset: string;
}

export const gbQueryBody = (target: GbTarget, question: BenchQuestion) =>
  JSON.stringify({ user_id: target.userId, dataset: target.dataset, query: question.query });

/**
 * What the double answers: a short answer citing the first edges, entities and passage of the
 * context it was sent (as a model would cite a few), so evidence is built and serialised.
 */
export function gbDoubleAnswer(userText: string): string {
  const ids = (kind: string, n: number) => [...userText.matchAll(new RegExp(`\\[${kind} (\\d+)\\]`, 'g'))].slice(0, n).map((m) => Number(m[1]));
  return JSON.stringify({
    answer: 'From memory: the first facts listed answer this.',
    entities: ids('entity', 2),
    edges: ids('edge', 3),
    passages: ids('passage', 1),
  });
}

export function gbQuestionsOf(file: QuestionsFile): BenchQuestion[] {
  if (!file.gb || file.gb.questions.length === 0) {
    throw new Error('the questions file has no gb dataset: seed with npm run bench:seed -- --gb-edges <n> (default 2000)');
  }
  return file.gb.questions;
}

/**
 * Sequential pass: every question answers 200; `lastContext` returns what the double was last
 * sent (the rendered context), to check that retrieval put the answer's entity in it.
 */
export async function checkGb(target: GbTarget, questions: BenchQuestion[], count: number, lastContext: () => string): Promise<GbCheck> {
  let ok = 0;
  let found = 0;
  let noInformation = 0;
  let bytes = 0;
  const asked = questions.slice(0, Math.min(count, questions.length));
  for (const question of asked) {
    const before = lastContext();
    const response = await fetch(`${target.url}/v1/gb/query`, { method: 'POST', headers: jsonHeaders(target), body: gbQueryBody(target, question) });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST /v1/gb/query answered ${response.status}: ${text.slice(0, 500)}`);
    ok++;
    bytes += Buffer.byteLength(text);
    const context = lastContext();
    if (context === before) noInformation++;
    else if (context.includes(question.answer.target)) found++;
  }
  const share = (n: number) => Math.round((n / Math.max(1, asked.length)) * 100) / 100;
  return { scenario: 'gb-query', requests: asked.length, ok, answer_in_context: share(found), no_information: share(noInformation), mean_bytes: Math.round(bytes / Math.max(1, ok)) };
}

export async function runGbCell(target: GbTarget, questions: BenchQuestion[], concurrency: number, durationS: number): Promise<Omit<GbCell, 'steps'>> {
  const cursor = new QuestionCursor(questions);
  const load = await loadHttp(target, '/v1/gb/query', () => gbQueryBody(target, cursor.next()), concurrency, durationS);
  return { scenario: 'gb-query', concurrency, ...load };
}

/**
 * Per-step timings of the gb queries a tenant made between two instants, from their request
 * log rows (the trajectory GbQueryController writes): one aggregate statement after the cell.
 */
export async function gbStepTimings(databaseUrl: string, tenantId: string, from: Date, to: Date): Promise<GbStepTiming[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; n: string; p: number[] }>(
      `SELECT s->>'name' AS name, count(*) AS n,
              percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY (s->>'ms')::float8) AS p
       FROM request_logs r CROSS JOIN LATERAL jsonb_array_elements(r.steps->'steps') s
       WHERE r.tenant_id = $1 AND r.route = '/v1/gb/query' AND r.status = 200 AND r.created_at >= $2 AND r.created_at <= $3
       GROUP BY 1`,
      [tenantId, from, to],
    );
    const order = ['keyword_seeds', 'search_vectors', 'expand', 'passages', 'answer'];
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
    return rows
      .map((r) => ({ name: r.name, requests: Number(r.n), p50_ms: round(r.p[0]), p95_ms: round(r.p[1]), p99_ms: round(r.p[2]) }))
      .sort((a, b) => rank(a.name) - rank(b.name));
  } finally {
    await client.end();
  }
}

export function gbCellLine(cell: GbCell): string {
  const l = cell.latency_ms;
  const steps = cell.steps.map((s) => `${s.name} ${s.p50_ms}`).join(', ');
  return (
    `gb-query c=${String(cell.concurrency).padEnd(3)} ${String(cell.throughput_rps).padStart(8)} req/s  ` +
    `p50 ${l.p50.toFixed(2)}  p95 ${l.p95.toFixed(2)}  p99 ${l.p99.toFixed(2)} ms  (${cell.requests} ok, ${cell.errors} errors)` +
    (steps ? `\n  steps p50 ms: ${steps}` : '')
  );
}

const round = (x: number) => Math.round(x * 100) / 100;
