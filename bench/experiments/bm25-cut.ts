/* BM25's cut (how many of a word's best postings chunkLexicalSearchSql reads) against reading
 * every posting, on a seeded bench database's large tenant: per cut, the PostgreSQL backend's
 * CPU of the statement alone (planning included; /proc of its backend, see backend-cpu.ts) and
 * how much of the exact top k the cut keeps (the chunks of the exact first k found in the cut's
 * first k, averaged over questions), plus the postings the question's words have. The cuts are
 * interleaved question by question, so load from other work falls on all of them alike.
 * Usage: DATABASE_URL=… node dist/bench/experiments/bm25-cut.js <questions.json> [questions] [rounds] [cuts]
 *   cuts: comma-separated, default 500,1000,2000,4000; the exact ranking is always measured.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { sql } from 'drizzle-orm';
import { PostgresDatabase } from '../../libs/db/src/postgres.database';
import { queryRows, SESSION_SETTINGS } from '../../libs/db/src/database';
import { chunkLexicalSearchSql, CorpusStats } from '../../libs/retrieval/src/lexical.queries';
import { TEXT_SEARCH_CONFIG } from '../../libs/db/src/lexical';
import { backendCpuMs } from './backend-cpu';

/** A cut no word reaches: every posting is read. */
const EXACT = 10_000_000;
const TOP = [5, 20];

async function main() {
  const [questionsPath, countArg, roundsArg, cutsArg] = process.argv.slice(2);
  const file = JSON.parse(readFileSync(questionsPath, 'utf8'));
  const questions: string[] = file.questions.slice(0, Number(countArg ?? 40)).map((q: { query: string }) => q.query);
  const rounds = Number(roundsArg ?? 2);
  const cuts = [EXACT, ...(cutsArg ?? '500,1000,2000,4000').split(',').map(Number)];
  const scope = { tenantId: file.large_tenant.tenant_id as string, graphId: Number(file.large_tenant.graph_id), embeddingModel: 'local:local-hash-v1' };
  const url = new URL(process.env.DATABASE_URL!);
  url.searchParams.set('options', Object.entries(SESSION_SETTINGS).map(([k, v]) => `-c ${k}=${v}`).join(' '));
  const database = PostgresDatabase.connect(url.toString(), 1);
  const pool = (database as unknown as { pool: Pool }).pool;
  const pid = Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);

  // N and avgdl as the service remembers them between questions (CorpusStatsMemo).
  const [stats] = await queryRows<{ n: string; mean: string }>(
    database.db,
    sql`SELECT count(*) AS n, avg(term_count) AS mean FROM chunks WHERE tenant_id = ${scope.tenantId} AND graph_id = ${scope.graphId}`,
  );
  const corpus: CorpusStats = { chunks: Number(stats.n), meanLength: Number(stats.mean) };
  const search = async (question: string, cut: number) =>
    (await queryRows<{ chunk_id: string }>(database.db, chunkLexicalSearchSql(scope, question, Math.max(...TOP), corpus, cut))).map((r) => r.chunk_id);

  const postings: number[] = [];
  for (const question of questions) {
    const [row] = await queryRows<{ postings: string }>(
      database.db,
      sql`SELECT count(*) AS postings FROM chunk_terms q
          WHERE q.tenant_id = ${scope.tenantId} AND q.graph_id = ${scope.graphId}
            AND q.lexeme IN (SELECT DISTINCT t.lexeme FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, ${question})) AS t)`,
    );
    postings.push(Number(row.postings));
  }
  const sorted = [...postings].sort((a, b) => a - b);
  console.log(`graph: ${corpus.chunks} chunks, mean length ${corpus.meanLength.toFixed(1)}; postings of a question's words: median ${sorted[sorted.length >> 1]}, max ${sorted[sorted.length - 1]} (${questions.length} questions)`);

  // Warm caches (and the exact answers).
  const exact = new Map<string, string[]>();
  for (const question of questions) exact.set(question, await search(question, EXACT));
  for (const question of questions) for (const cut of cuts) await search(question, cut);

  const cpu = new Map<number, number>(cuts.map((cut) => [cut, 0]));
  const kept = new Map<number, number[]>(cuts.map((cut) => [cut, TOP.map(() => 0)]));
  for (let round = 0; round < rounds; round++) {
    for (const question of questions) {
      for (const cut of cuts) {
        const before = backendCpuMs(pid);
        const ids = await search(question, cut);
        cpu.set(cut, cpu.get(cut)! + backendCpuMs(pid) - before);
        if (round > 0) continue;
        const truth = exact.get(question)!;
        TOP.forEach((k, i) => {
          const wanted = truth.slice(0, k);
          const got = new Set(ids.slice(0, k));
          kept.get(cut)![i] += wanted.length === 0 ? 1 : wanted.filter((id) => got.has(id)).length / wanted.length;
        });
      }
    }
  }
  for (const cut of cuts) {
    const label = cut === EXACT ? 'every posting' : `cut ${cut}`;
    const share = kept.get(cut)!.map((sum, i) => `top ${TOP[i]} kept ${(sum / questions.length).toFixed(3)}`).join(', ');
    console.log(`${label.padEnd(14)} PostgreSQL ${(cpu.get(cut)! / (questions.length * rounds)).toFixed(2)} ms a question; ${share}`);
  }
  await database.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
