import type { DatabaseKind } from './database';

/**
 * How many rows with vectors one write statement carries (ingestion's inserts, the offline
 * vectors' move). Each row costs its HNSW insertions, and on the embedded store PGlite runs a
 * statement, insertions included, on the thread that answers requests: the loop turns only
 * between statements (pglite.database.ts). Ingesting HotpotQA passages, 25 entities a statement
 * held it for up to 1.8 s on a graph of a few hundred entities; one row a statement, at most
 * 0.15 s (bench/experiments/offline-vectors-move.ts, docs/BENCHMARKS.md "Ingestion's holds on PGlite").
 * PostgreSQL runs them in the server, so there a statement carries 25 rows: fewer round trips,
 * and drizzle's serialisation of a batch stays in the milliseconds on the calling thread.
 */
export function vectorRowsAStatement(kind: DatabaseKind | undefined): number {
  return kind === 'pglite' ? EMBEDDED_ROWS_A_STATEMENT : SERVER_ROWS_A_STATEMENT;
}

const EMBEDDED_ROWS_A_STATEMENT = 1;
const SERVER_ROWS_A_STATEMENT = 25;
