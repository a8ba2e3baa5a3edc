/* PostgreSQL CPU of one HNSW insertion at the width the offline embedder stores (1024, the
 * columns' width: a narrower hashing vector is zero-padded to it, and HNSW computes distances
 * over every element) against a narrower column, and what each finds (recall@10 of an HNSW
 * search against the exact nearest by cosine at the same width). Issue 16 asks for the local
 * embedder's vectors at the width they need; this is the cost side of that decision, ingestion
 * inserting ~33 vectors a chunk (docs/BENCHMARKS.md, "CPU a chunk").
 * Texts: 12-word windows of the HotpotQA-100 passages, embedded by the hashing embedder at each
 * width; a temporary table per width with an HNSW index (halfvec_cosine_ops, the store's
 * m/ef_construction defaults), prefilled, then single-row inserts timed by the backend's CPU
 * (/proc), widths interleaved in rounds. One connection.
 * Usage (from the checkout, beside ../shared): DATABASE_URL=… node dist/bench/experiments/hnsw-width-cpu.js [prefill] [inserts] [rounds] [widths]
 */
import { Client } from 'pg';
import { backendCpuMs } from './backend-cpu';
import { passageWindows } from './hotpot-passages';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { halfvecText } from '../../libs/db/src/vector-text';

const STORE_WIDTH = 1024;

async function main() {
  const [prefillArg, insertsArg, roundsArg, widthsArg] = process.argv.slice(2);
  const prefill = Number(prefillArg ?? 20_000);
  const inserts = Number(insertsArg ?? 500);
  const rounds = Number(roundsArg ?? 2);
  const widths = (widthsArg ?? '1024,256').split(',').map(Number);
  const texts = passageWindows(prefill + inserts * rounds + 200, 5);

  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  // Its own tables need pgvector's types; a database Loci never migrated has no extension yet.
  await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  const vectors = new Map<number, string[]>();
  for (const width of widths) {
    const embedder = new LocalHashingEmbedder(width);
    vectors.set(width, texts.map((text) => halfvecText(embedder.embedText(text))));
    await client.query(`CREATE TEMPORARY TABLE hnsw_width_${width} (id int, v halfvec(${width}))`);
    await client.query(`CREATE INDEX ON hnsw_width_${width} USING hnsw (v halfvec_cosine_ops)`);
    const started = Date.now();
    for (let i = 0; i < prefill; i += 500) {
      const slice = vectors.get(width)!.slice(i, Math.min(prefill, i + 500));
      await client.query(
        `INSERT INTO hnsw_width_${width} SELECT i + ${i}, v::halfvec(${width}) FROM unnest($1::text[]) WITH ORDINALITY AS t(v, i)`,
        [slice],
      );
    }
    console.log(`width ${width}: prefilled ${prefill} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const cpu = new Map<number, number>(widths.map((w) => [w, 0]));
  let next = prefill;
  for (let round = 0; round < rounds; round++) {
    for (const width of widths) {
      const before = backendCpuMs(pid);
      for (let i = 0; i < inserts; i++) {
        await client.query(`INSERT INTO hnsw_width_${width} VALUES ($1, $2::halfvec(${width}))`, [next + i, vectors.get(width)![next + i]]);
      }
      cpu.set(width, cpu.get(width)! + backendCpuMs(pid) - before);
    }
    next += inserts;
  }
  // Recall@10 of the index against an exact scan, 100 queries from texts not inserted.
  for (const width of widths) {
    let found = 0;
    const queries = vectors.get(width)!.slice(next, next + 100);
    for (const query of queries) {
      await client.query('SET enable_indexscan = on');
      const viaIndex = await client.query(`SELECT id FROM hnsw_width_${width} ORDER BY v <=> $1::halfvec(${width}) LIMIT 10`, [query]);
      await client.query('SET enable_indexscan = off');
      const exact = await client.query(`SELECT id FROM hnsw_width_${width} ORDER BY v <=> $1::halfvec(${width}) LIMIT 10`, [query]);
      const got = new Set(viaIndex.rows.map((r) => r.id));
      found += exact.rows.filter((r) => got.has(r.id)).length / Math.max(1, exact.rows.length);
    }
    await client.query('SET enable_indexscan = on');
    const label = width === STORE_WIDTH ? `${width} (the store's width)` : `${width}`;
    console.log(`width ${label}: ${(cpu.get(width)! / (inserts * rounds)).toFixed(2)} ms of PostgreSQL CPU an insertion; HNSW recall@10 ${(found / queries.length).toFixed(3)}`);
  }
  await client.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
