/* Where ingestion's time goes on the embedded store, statement by statement: PGlite runs each
 * statement on the thread that answers requests, so its longest statements are the API's
 * longest holds, and a chunk's transaction is how long a read of the store waits.
 *
 * A worker (the offline providers, one document at a time) ingests the first <passages>
 * HotpotQA-100 passages into a PGlite store in a temporary directory. Every statement is timed
 * (from the call to its result, so with one worker it is the statement's own time); reported:
 * the wall time, the event loop's delay (perf_hooks, 10 ms resolution), and the statements
 * grouped by their first words, the costliest groups first, with their count, total and longest.
 *
 * Options: --passages N (60), --dimensions 1024|256 (the offline embedder's width, 1024),
 * --hnsw "ef_construction = 32" (an ALTER INDEX … SET applied to every HNSW index before the
 * ingestion; pgvector reads ef_construction at each insertion, while m stays what the index was
 * built with), --drop index[,index] (indexes dropped first: what one index costs).
 * Usage: npm run build && node dist/bench/experiments/pglite-statements.js [options]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import { DATABASE, queryRows, TenantsRepository } from '@loci/db';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { sql } from 'drizzle-orm';
import { hotpotPassages } from './hotpot-passages';
import { pgliteWorker } from './pglite-worker';
import { integer, parse, UsageError } from '../args';

type Timed = { ms: number; text: string };
type Query = (text: string, ...rest: never[]) => Promise<unknown>;

/** Times every statement of `client`, its transactions' included, into `timed`. */
function timeStatements(client: PGlite, timed: Timed[]): void {
  const timing =
    (query: Query): Query =>
    async (text, ...rest) => {
      const started = performance.now();
      try {
        return await query(text, ...rest);
      } finally {
        timed.push({ ms: performance.now() - started, text: text.replace(/\s+/g, ' ').trim() });
      }
    };
  client.query = timing(client.query.bind(client)) as PGlite['query'];
  const transaction = client.transaction.bind(client);
  client.transaction = <T>(callback: (tx: Transaction) => Promise<T>) =>
    transaction((tx) => {
      tx.query = timing(tx.query.bind(tx)) as Transaction['query'];
      return callback(tx);
    });
}

async function main() {
  const { values } = parse(process.argv.slice(2), {
    passages: { type: 'string' },
    dimensions: { type: 'string' },
    hnsw: { type: 'string' },
    drop: { type: 'string' },
  });
  const passages = integer('passages', values.passages, 60, 1, 994);
  const dimensions = integer('dimensions', values.dimensions, 1024, 256, 1024);
  if (dimensions !== 256 && dimensions !== 1024) throw new UsageError('--dimensions must be 1024 or 256');
  if (values.hnsw && !/^[a-z_]+\s*=\s*\d+(\s*,\s*[a-z_]+\s*=\s*\d+)*$/.test(values.hnsw)) throw new UsageError('--hnsw takes "name = value[, …]"');
  const dropped = values.drop ? values.drop.split(',').map((name) => name.trim()) : [];
  if (dropped.some((name) => !/^[a-z0-9_]+$/.test(name))) throw new UsageError('--drop takes index names');

  const corpus = hotpotPassages();
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-bench-statements-'));
  const app = await pgliteWorker(dataDir, {
    LOCI_LOCAL_EMBEDDING_DIM: String(dimensions),
    LOCI_WORKER_CONCURRENCY: '1',
    LOCI_MOVE_LOCAL_VECTORS: 'false',
  });
  try {
    const database = app.get(DATABASE);
    for (const name of dropped) await database.db.execute(sql.raw(`DROP INDEX ${name}`));
    if (values.hnsw) {
      const indexes = await queryRows<{ name: string }>(
        database.db,
        sql`SELECT c.relname AS name FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'hnsw'`,
      );
      for (const { name } of indexes) await database.db.execute(sql.raw(`ALTER INDEX ${name} SET (${values.hnsw})`));
    }
    const tenantId = (await app.get(TenantsRepository).create({ name: `bench-statements-${Date.now()}`, tier: 'enterprise', billing: 'platform' })).id;
    const documents = app.get(DocumentsService);
    for (const passage of corpus.slice(0, passages)) {
      await documents.submit(tenantId, { name: `${passage.title}.txt`, text: passage.text, mimeType: 'text/plain' });
    }

    const timed: Timed[] = [];
    timeStatements((database as unknown as { client: PGlite }).client, timed);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = Date.now();
    const worker = app.get(IngestWorker);
    worker.start();
    await worker.drain();
    const wallS = (Date.now() - started) / 1000;
    delay.disable();

    const groups = new Map<string, { statements: number; total_ms: number; max_ms: number }>();
    for (const { ms, text } of timed) {
      const key = text.slice(0, 60);
      const group = groups.get(key) ?? { statements: 0, total_ms: 0, max_ms: 0 };
      group.statements += 1;
      group.total_ms += ms;
      group.max_ms = Math.max(group.max_ms, ms);
      groups.set(key, group);
    }
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    console.log(
      JSON.stringify(
        {
          store: 'pglite',
          passages,
          dimensions,
          hnsw: values.hnsw ?? null,
          dropped,
          wall_s: wallS,
          event_loop_delay_ms: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
          statements: timed.length,
          statement_ms: Math.round(timed.reduce((sum, t) => sum + t.ms, 0)),
          costliest: [...groups]
            .sort((a, b) => b[1].total_ms - a[1].total_ms)
            .slice(0, 8)
            .map(([statement, g]) => ({ statement, ...g, total_ms: Math.round(g.total_ms), max_ms: Math.round(g.max_ms) })),
        },
        null,
        1,
      ),
    );
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof UsageError ? `${error.message}` : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
