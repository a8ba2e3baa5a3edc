/* What an HNSW insertion and a nearest-neighbour search cost on the embedded store (PGlite,
 * WebAssembly) for each vector type pgvector offers: `halfvec`, which both stores use today
 * (migration 0012), against `vector` (float32), at each stored width. In WebAssembly pgvector
 * has neither F16C nor SIMD, so a half-precision distance converts every component in software.
 *
 * For each type and width: an in-memory PGlite with one table `(id, v <type>(W))` and its HNSW
 * cosine index (pgvector's defaults, as the store's), <rows> vectors inserted one a statement
 * (as ingestion now writes on PGlite), timed in blocks of a quarter; then <queries> searches of
 * the 10 nearest (`ORDER BY v <=> $1 LIMIT 10`, hnsw.ef_search 40). Vectors: the offline hashing
 * embedder's, of 12-word windows of the HotpotQA-100 passages (entity names and facts are short
 * texts like these). The same vectors, in the same order, for every type.
 * Usage: npm run build && node dist/bench/experiments/pglite-vector-types.js [rows=1200] [queries=100] [widths=1024,256]
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { passageWindows } from './hotpot-passages';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';

const TYPES = ['halfvec', 'vector'] as const;

async function measure(type: (typeof TYPES)[number], width: number, vectors: string[], queries: string[]) {
  const db = await PGlite.create({ extensions: { vector } });
  try {
    await db.exec(`CREATE EXTENSION IF NOT EXISTS vector;
      CREATE TABLE t (id serial PRIMARY KEY, v ${type}(${width}));
      CREATE INDEX ON t USING hnsw (v ${type}_cosine_ops);`);
    const quarter = Math.max(1, Math.floor(vectors.length / 4));
    const insertMs: number[] = [];
    let started = performance.now();
    for (const [i, v] of vectors.entries()) {
      await db.query(`INSERT INTO t (v) VALUES ($1::${type}(${width}))`, [v]);
      if ((i + 1) % quarter === 0) {
        insertMs.push(Math.round(((performance.now() - started) / quarter) * 100) / 100);
        started = performance.now();
      }
    }
    const searchMs: number[] = [];
    for (const q of queries) {
      const at = performance.now();
      await db.query(`SELECT id FROM t ORDER BY v <=> $1::${type}(${width}) LIMIT 10`, [q]);
      searchMs.push(performance.now() - at);
    }
    searchMs.sort((a, b) => a - b);
    return {
      type,
      width,
      rows: vectors.length,
      insert_ms_by_quarter: insertMs,
      search_ms_p50: Math.round(searchMs[Math.floor(searchMs.length / 2)] * 100) / 100,
    };
  } finally {
    await db.close();
  }
}

async function main() {
  const [rowsArg, queriesArg, widthsArg] = process.argv.slice(2);
  const rows = Number(rowsArg ?? 1200);
  const queryCount = Number(queriesArg ?? 100);
  const widths = (widthsArg ?? '1024,256').split(',').map(Number);
  const texts = passageWindows(rows + queryCount, 7);
  for (const width of widths) {
    const embedder = new LocalHashingEmbedder(width);
    const text = (t: string) => `[${embedder.embedText(t).join(',')}]`;
    const vectors = texts.slice(0, rows).map(text);
    const queries = texts.slice(rows).map(text);
    for (const type of TYPES) console.log(JSON.stringify(await measure(type, width, vectors, queries)));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
