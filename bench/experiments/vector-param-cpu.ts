/* CPU of sending one query vector to PostgreSQL, text (halfvecText, ~10 KB) against binary
 * (halfvecParam, 2 KB): `SELECT $1::halfvec IS NULL` on one connection, the PostgreSQL backend's
 * CPU from /proc (the database runs on this machine) and this process's from process.cpuUsage,
 * per statement, the two interleaved in rounds. What a vector search pays for its vector
 * beyond the search itself; a mix question sends three to four.
 * Usage: DATABASE_URL=… npx tsx bench/experiments/vector-param-cpu.ts [statements] [rounds]
 */
import { Client } from 'pg';
import { backendCpuMs } from './backend-cpu';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { halfvecParam, halfvecText } from '../../libs/db/src/vector-text';

const [countArg, roundsArg] = process.argv.slice(2);
const count = Number(countArg ?? 2000);
const rounds = Number(roundsArg ?? 3);
async function main() {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const embedder = new LocalHashingEmbedder();
  // Fresh arrays each statement, as each question brings its own vectors (nothing cached across).
  const questions = Array.from({ length: 200 }, (_, i) => `who founded the company that employs person ${i} in city ${i % 17}?`);
  const kinds = {
    text: (vector: number[]) => halfvecText(vector),
    binary: (vector: number[]) => halfvecParam(vector),
  };
  for (let round = 0; round <= rounds; round++) {
    for (const [kind, param] of Object.entries(kinds)) {
      const vectors = Array.from({ length: count }, (_, i) => [...embedder.embedText(questions[i % questions.length])]);
      const pgBefore = backendCpuMs(pid);
      const nodeBefore = process.cpuUsage();
      for (const vector of vectors) await client.query('SELECT $1::halfvec IS NULL AS missing', [param(vector)]);
      const node = process.cpuUsage(nodeBefore);
      const pgUs = ((backendCpuMs(pid) - pgBefore) * 1000) / count;
      const nodeUs = (node.user + node.system) / count;
      // Round 0 warms the JIT and the backend.
      if (round > 0) console.log(`round ${round} ${kind.padEnd(6)} PostgreSQL ${pgUs.toFixed(1)} µs  Node ${nodeUs.toFixed(1)} µs  per statement (${count})`);
    }
  }
  await client.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
