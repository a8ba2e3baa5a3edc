/* CPU per question of RetrievalService.retrieve, on a seeded bench database: the PostgreSQL
 * backend's CPU (utime + stime of its process, read from /proc: the database runs on this
 * machine) and this process's CPU (process.cpuUsage), per mode. CPU time, unlike wall time,
 * barely moves when other work shares the machine, so two builds can be compared on a busy
 * one; the bench's req/s at c=16 on 2 cores is bounded by the sum of the two.
 * One connection (pool of 1): the statements a retrieval sends concurrently run one after
 * another, which costs no CPU and keeps them on the backend measured.
 * With BY_STATEMENT=1 each mode's statements are then replayed one kind at a time (labels as
 * profile-retrieval.ts names them), for the PostgreSQL CPU of each kind per question.
 * Usage: DATABASE_URL=… [LOCI_BM25_POSTINGS_PER_TERM=n] npx tsx bench/experiments/retrieval-cpu.ts <questions.json> [questions] [rounds] [modes]
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { PostgresDatabase } from '../../libs/db/src/postgres.database';
import { SESSION_SETTINGS } from '../../libs/db/src/database';
import { RetrievalService } from '../../libs/retrieval/src/retrieval.service';
import { backendCpuMs } from './backend-cpu';
import { labelOf } from './profile-retrieval-labels';
import { benchRequests } from './bench-question-requests';

type Mode = 'naive' | 'local' | 'global' | 'hybrid' | 'mix';
const [questionsPath, countArg, roundsArg, modesArg] = process.argv.slice(2);
const count = Number(countArg ?? 100);
const rounds = Number(roundsArg ?? 3);
const modes = (modesArg ?? 'naive,mix').split(',') as Mode[];
async function main() {
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions = file.questions.slice(0, count);
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('options', Object.entries(SESSION_SETTINGS).map(([k, v]) => `-c ${k}=${v}`).join(' '));
  const database = PostgresDatabase.connect(url.toString(), 1);
  const pool = (database as unknown as { pool: Pool }).pool;
  // LOCI_BM25_POSTINGS_PER_TERM as the API reads it (minSimilarity is the API's, unused here).
  const cut = process.env.LOCI_BM25_POSTINGS_PER_TERM;
  const service = new RetrievalService(database, cut ? { query: { minSimilarity: 0, bm25PostingsPerTerm: Number(cut), questionsAtOnce: 1, questionTurnLingerMs: 0, questionPauseMaxMs: 0, questionStatementsAtOnce: 0 } } : undefined);
  const requestFor = benchRequests(file);
  // Warm the backend's caches and the JIT once per mode before measuring.
  for (const mode of modes) for (const q of questions) await service.retrieve(requestFor(mode, q));
  const pid = Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const lines: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const mode of modes) {
      const requests = questions.map((q: { query: string; hl_keywords: string[]; ll_keywords: string[] }) => requestFor(mode, q));
      const pgBefore = backendCpuMs(pid);
      const nodeBefore = process.cpuUsage();
      for (const request of requests) await service.retrieve(request);
      const node = process.cpuUsage(nodeBefore);
      const pg = backendCpuMs(pid) - pgBefore;
      const nodeMs = (node.user + node.system) / 1000 / requests.length;
      const pgMs = pg / requests.length;
      lines.push(
        `round ${round} ${mode.padEnd(6)} PostgreSQL ${pgMs.toFixed(2)} ms  Node ${nodeMs.toFixed(2)} ms  sum ${(pgMs + nodeMs).toFixed(2)} ms per question (${requests.length})`,
      );
      console.log(lines[lines.length - 1]);
    }
  }
  if (process.env.BY_STATEMENT) {
    const recorded: Array<{ text: string; values: unknown[] }> = [];
    const original = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
    (pool as unknown as { query: unknown }).query = (config: { text?: string; values?: unknown[] }, values?: unknown, callback?: unknown) => {
      if (typeof config === 'object' && config.text) recorded.push({ text: config.text, values: config.values ?? (Array.isArray(values) ? values : []) });
      return (original as (...a: unknown[]) => unknown)(config, values, callback);
    };
    for (const mode of modes) {
      recorded.length = 0;
      for (const q of questions) await service.retrieve(requestFor(mode, q));
      const byLabel = new Map<string, Array<{ text: string; values: unknown[] }>>();
      for (const statement of recorded) {
        const label = labelOf(statement.text);
        if (!byLabel.has(label)) byLabel.set(label, []);
        byLabel.get(label)!.push(statement);
      }
      for (const [label, statements] of byLabel) {
        const before = backendCpuMs(pid);
        for (let round = 0; round < rounds; round++) for (const statement of statements) await original(statement);
        const perQuestion = (backendCpuMs(pid) - before) / rounds / questions.length;
        console.log(`${mode.padEnd(6)} ${label.padEnd(28)} ${(statements.length / questions.length).toFixed(2)} a question  PostgreSQL ${perQuestion.toFixed(2)} ms per question`);
      }
    }
  }
  const check = Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  if (check !== pid) console.log(`warning: the backend changed (${pid} → ${check}); PostgreSQL figures are not valid`);
  await database.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
