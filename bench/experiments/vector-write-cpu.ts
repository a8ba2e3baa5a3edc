/* CPU of writing a chunk's vectors to PostgreSQL, as text (halfvecText, ~10 KB each, what the
 * halfvec columns sent before) against binary parameters (halfvecParam, 2 KB, typed by the
 * column): `INSERT … VALUES ($1), ($2), …` of `perChunk` rows into a temporary table with a
 * `halfvec(1024)` column and no index (the HNSW upkeep is the same either way and would hide the
 * difference), one transaction a chunk, on one connection. PostgreSQL backend CPU from /proc (the
 * database runs on this machine), this process's from process.cpuUsage, the two interleaved in
 * rounds. A chunk of the ingest bench writes ~33 vectors (chunk, summary, two an entity, one a fact).
 * Usage: DATABASE_URL=… npx tsx bench/experiments/vector-write-cpu.ts [chunks] [rounds] [perChunk]
 */
import { Client } from 'pg';
import { backendCpuMs } from './backend-cpu';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { halfvecParam, halfvecText } from '../../libs/db/src/vector-text';

const [chunksArg, roundsArg, perChunkArg] = process.argv.slice(2);
const chunks = Number(chunksArg ?? 200);
const rounds = Number(roundsArg ?? 3);
const perChunk = Number(perChunkArg ?? 33);
async function main() {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  await client.query('CREATE TEMPORARY TABLE vector_write_cpu (v halfvec(1024))');
  const embedder = new LocalHashingEmbedder();
  const texts = Array.from({ length: 500 }, (_, i) => `Person ${i} joined the company ${i % 37} in city ${i % 17} in ${1990 + (i % 30)}.`);
  const values = Array.from({ length: perChunk }, (_, i) => `($${i + 1})`).join(', ');
  const kinds: Record<string, (vector: number[]) => unknown> = {
    text: (vector: number[]) => halfvecText(vector),
    binary: (vector: number[]) => halfvecParam(vector),
  };
  for (let round = 0; round <= rounds; round++) {
    for (const [kind, param] of Object.entries(kinds)) {
      // Fresh arrays each chunk, as each chunk brings its own vectors (nothing cached across).
      const batches = Array.from({ length: chunks }, (_, c) =>
        Array.from({ length: perChunk }, (_, i) => [...embedder.embedText(texts[(c * perChunk + i) % texts.length])]),
      );
      const pgBefore = backendCpuMs(pid);
      const nodeBefore = process.cpuUsage();
      for (const batch of batches) {
        await client.query('BEGIN');
        await client.query(`INSERT INTO vector_write_cpu (v) VALUES ${values}`, batch.map(param));
        await client.query('COMMIT');
      }
      const node = process.cpuUsage(nodeBefore);
      const pgMs = (backendCpuMs(pid) - pgBefore) / chunks;
      const nodeMs = (node.user + node.system) / 1000 / chunks;
      await client.query('TRUNCATE vector_write_cpu');
      // Round 0 warms the JIT and the backend.
      if (round > 0) console.log(`round ${round} ${kind.padEnd(6)} PostgreSQL ${pgMs.toFixed(2)} ms  Node ${nodeMs.toFixed(2)} ms  per chunk of ${perChunk} vectors (${chunks} chunks)`);
    }
  }
  await client.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
