/* How long the statistics keeper's pass holds a PGlite store (docs/decisions/0008-planner-statistics.md, "one table a
 * transaction"). Seeds a store of SIZE (5 000 chunks with two vectors each, 300 000 BM25
 * postings, 20 000 entities with two vectors each, 500 documents) straight in SQL, then each
 * round marks those tables unanalyzed (relpages 0 in pg_class: the keeper's rule then finds them
 * stale, and ANALYZE does the same work as on a first pass) and runs `analyzeStale()` while
 * - a 1 ms interval measures the longest event-loop gap (PGlite runs on this thread), and
 * - a loop sends `SELECT 1` one after another and measures the longest wait of one (what a
 *   request's query waits for the store's one connection).
 * Then each table's ANALYZE alone, at the default statistics target and at 10.
 * The HNSW indexes are dropped before seeding (their inserts would take most of the seed's time;
 * ANALYZE reads the heap, never an HNSW index). Timings are of this machine; compare runs of one.
 * Usage: npx tsx bench/experiments/analyze-stall.ts [data dir, seeded when empty; default a temporary one] [rounds, default 5]
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { findMigrationsFolder } from '../../libs/db/src/migrations-folder';
import { PgliteDatabase } from '../../libs/db/src/pglite.database';
import { queryRows } from '../../libs/db/src/database';
import { TableStatisticsKeeper } from '../../libs/db/src/table-statistics.keeper';

const SIZE = { documents: 500, chunks: 5_000, termsPerChunk: 60, entities: 20_000 };
const TABLES = ['documents', 'chunks', 'chunk_terms', 'entities'];

const [dirArg, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 5);

async function seed(database: PgliteDatabase): Promise<void> {
  const db = database.db;
  for (const index of ['chunks_embedding_hnsw', 'chunks_summary_embedding_hnsw', 'entities_embedding_hnsw', 'entities_name_embedding_hnsw']) {
    await db.execute(sql.raw(`DROP INDEX IF EXISTS ${index}`));
  }
  const [{ tenant }] = await queryRows<{ tenant: string }>(db, sql`INSERT INTO tenants (name) VALUES ('analyze bench') RETURNING id AS tenant`);
  const [{ graph }] = await queryRows<{ graph: number }>(db, sql`INSERT INTO graphs (tenant_id, kind, name) VALUES (${tenant}, 'default', 'default') RETURNING id AS graph`);
  // A thousand unit-ish vectors, reused: rows differ as a graph's do, and seeding stays minutes.
  await db.execute(sql`CREATE TEMP TABLE bench_vectors AS
    SELECT v AS n, ('[' || (SELECT string_agg(to_char(sin(v * 0.37 + k * 1.3), 'FM0.0000'), ',') FROM generate_series(1, 1024) AS k) || ']')::halfvec(1024) AS vec
    FROM generate_series(0, 999) AS v`);
  const text = (i: string) => sql.raw(`(SELECT string_agg(md5(${i}::text || k), ' ') FROM generate_series(1, 24) AS k)`);
  await db.execute(sql`INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text)
    SELECT ${tenant}, ${graph}, 'document', 'doc ' || i, md5('doc' || i), ${text('i')} FROM generate_series(1, ${SIZE.documents}) AS i`);
  await db.execute(sql`INSERT INTO chunks (tenant_id, graph_id, document_id, index, text, token_count, embedding, summary_embedding, term_count)
    SELECT ${tenant}, ${graph}, d.id, c, ${text('(d.id * 100 + c)')}, 200, a.vec, b.vec, 120
    FROM documents d CROSS JOIN generate_series(1, ${SIZE.chunks / SIZE.documents}) AS c
    JOIN bench_vectors a ON a.n = (d.id * 10 + c) % 1000 JOIN bench_vectors b ON b.n = (d.id * 10 + c + 500) % 1000`);
  await db.execute(sql`INSERT INTO chunk_terms (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
    SELECT ${tenant}, ${graph}, 'w' || ((c.id * 7 + k * 131) % 20000), c.id, 1 + (c.id + k) % 3, 120
    FROM chunks c CROSS JOIN generate_series(1, ${SIZE.termsPerChunk}) AS k`);
  await db.execute(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name, description, embedding, name_embedding)
    SELECT ${tenant}, ${graph}, 'Entity ' || i, 'entity ' || i, 'Described in ' || md5(i::text), a.vec, b.vec
    FROM generate_series(1, ${SIZE.entities}) AS i JOIN bench_vectors a ON a.n = i % 1000 JOIN bench_vectors b ON b.n = (i * 7) % 1000`);
  await db.execute(sql`CHECKPOINT`);
}

/** The longest gap between ticks of a 1 ms interval, and the longest wait of a `SELECT 1`, while `step` runs. */
async function measure(database: PgliteDatabase, step: () => Promise<unknown>) {
  let last = performance.now();
  let loopGap = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    loopGap = Math.max(loopGap, now - last);
    last = now;
  }, 1);
  let running = true;
  let queryWait = 0;
  let queries = 0;
  const prober = (async () => {
    while (running) {
      const sent = performance.now();
      await database.db.execute(sql`SELECT 1`);
      queryWait = Math.max(queryWait, performance.now() - sent);
      queries++;
    }
  })();
  const started = performance.now();
  const result = await step();
  const took = performance.now() - started;
  running = false;
  await prober;
  clearInterval(ticker);
  return { took: Math.round(took), longestLoopGap: Math.round(loopGap), longestQueryWait: Math.round(queryWait), queries, result };
}

async function main() {
  const dir = dirArg ?? mkdtempSync(join(tmpdir(), 'loci-analyze-bench-'));
  const fresh = !existsSync(dir) || readdirSync(dir).length === 0;
  const database = await PgliteDatabase.open(dir);
  try {
    if (fresh) {
      await database.migrate(findMigrationsFolder());
      const started = performance.now();
      await seed(database);
      console.log(`seeded ${dir} in ${Math.round((performance.now() - started) / 1000)} s`);
    }
    const sizes = await queryRows<Record<string, unknown>>(
      database.db,
      sql.raw(`SELECT relname AS table, pg_size_pretty(pg_table_size(oid)) AS size FROM pg_class WHERE relname IN (${TABLES.map((t) => `'${t}'`).join(', ')}) ORDER BY relname`),
    );
    console.log(JSON.stringify(sizes));
    const keeper = new TableStatisticsKeeper(database);
    const passes: Array<Awaited<ReturnType<typeof measure>>> = [];
    for (let round = 0; round <= rounds; round++) {
      await database.db.execute(sql.raw(`UPDATE pg_class SET relpages = 0 WHERE relname IN (${TABLES.map((t) => `'${t}'`).join(', ')})`));
      const pass = await measure(database, () => keeper.analyzeStale());
      // Round 0 warms the store's caches (the first read of the statistics views alone takes ~0.6 s) and is not counted.
      console.log(JSON.stringify({ round, pass: 'analyzeStale', ...pass }));
      if (round > 0) passes.push(pass);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const summary = (key: 'took' | 'longestLoopGap' | 'longestQueryWait') => ({ median: median(passes.map((p) => p[key])), max: Math.max(...passes.map((p) => p[key])) });
    console.log(JSON.stringify({ rounds, took: summary('took'), longestLoopGap: summary('longestLoopGap'), longestQueryWait: summary('longestQueryWait') }));
    for (const target of [100, 10]) {
      await database.db.execute(sql.raw(`SET default_statistics_target = ${target}`));
      const times: Record<string, number> = {};
      for (const table of TABLES) {
        const started = performance.now();
        await database.db.execute(sql.raw(`ANALYZE "${table}"`));
        times[table] = Math.round(performance.now() - started);
      }
      console.log(JSON.stringify({ statisticsTarget: target, analyzeMs: times }));
    }
    await database.db.execute(sql`RESET default_statistics_target`);
  } finally {
    await database.close();
    if (!dirArg) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
