import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from './database';
import { errorSummary } from './loggable-error';

/**
 * The tables ingestion writes and retrieval's plans read. A table ingestion starts writing
 * (BM25's term postings, say) belongs here; a name that does not exist (yet) is skipped.
 */
export const INGESTED_TABLES: readonly string[] = [
  'documents',
  'chunks',
  'chunk_terms',
  'entities',
  'edges',
  'entity_documents',
  'edge_documents',
  'entity_chunks',
  'edge_chunks',
];

/** One analyzer at a time across every process on the store (transaction-level, so it ends with the pass). */
const ANALYZE_LOCK_SQL = sql`SELECT pg_try_advisory_xact_lock(hashtext('loci.analyze')) AS locked`;

/**
 * The tables whose statistics are stale by autovacuum's own rule (changes since the last
 * analyze > autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × rows, read from
 * the server's settings). Changes are the larger of two counts:
 * - `n_mod_since_analyze`, the server's counter (updates and deletes too); a backend reports
 *   it only when idle, up to seconds after its commit;
 * - the rows the heap has grown by since the last analyze, estimated from its size now against
 *   the size the analyze saw (`relpages`): current at once, so a pass right after a commit
 *   sees that commit's inserts.
 * A table with rows and no statistics at all (`relpages` 0: never analyzed, or analyzed empty)
 * is stale whatever its size: that is a fresh tenant's first ingestion.
 */
const staleTablesSql = (tables: readonly string[]) => sql`
  SELECT c.relname AS name
  FROM unnest(${`{${tables.join(',')}}`}::text[]) AS wanted(name)
  JOIN pg_class c ON c.oid = to_regclass(wanted.name)
  LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
  CROSS JOIN LATERAL (SELECT pg_relation_size(c.oid) / current_setting('block_size')::float8 AS pages) size
  WHERE size.pages > 0
    AND (c.relpages = 0
      OR greatest(coalesce(s.n_mod_since_analyze, 0), (size.pages - c.relpages) * greatest(c.reltuples, 0) / c.relpages)
         > current_setting('autovacuum_analyze_threshold')::float8
           + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0))
  ORDER BY c.relname`;

/**
 * Keeps the planner's statistics of the ingested tables current, as autovacuum would, because
 * on PGlite it never runs and on PostgreSQL it may be off or behind: a freshly ingested tenant
 * without statistics had its questions planned as if its graph were empty (btree reads and
 * sorts of the whole graph instead of the HNSW indexes: 180–1,200 ms a question instead of
 * 3–24 ms, issue 13).
 *
 * Ingestion calls `noteWrites()` after each commit; a pass asks the catalog which tables are
 * over the threshold and analyzes only those, so analyzing is rare however often writes are
 * noted. At most one pass runs in this process (notes that arrive meanwhile make one more pass
 * afterwards), and at most one across processes (an advisory try-lock: a process that does not
 * get it skips, the holder is analyzing anyway). A failed pass is logged, never thrown: stale
 * statistics make questions slower, not wrong.
 */
@Injectable()
export class TableStatisticsKeeper implements OnApplicationShutdown {
  private readonly logger = new Logger('TableStatistics');
  private running?: Promise<void>;
  private noted = false;
  private stopped = false;
  private readonly tables = INGESTED_TABLES;

  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** Rows were committed to the ingested tables: analyze them in the background if that made them stale. */
  noteWrites(): void {
    if (this.stopped) return;
    this.noted = true;
    this.running ??= this.passes().finally(() => (this.running = undefined));
  }

  /** Resolves when no pass runs or is due (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Analyzes the stale tables now; returns their names (empty: nothing was stale, or another process holds the lock). */
  async analyzeStale(): Promise<string[]> {
    return this.database.db.transaction(async (tx) => {
      const [{ locked }] = await queryRows<{ locked: boolean }>(tx as unknown as Db, ANALYZE_LOCK_SQL);
      if (!locked) return [];
      const stale = (await queryRows<{ name: string }>(tx as unknown as Db, staleTablesSql(this.tables))).map((r) => r.name);
      // ANALYZE may run in a transaction block (VACUUM may not); one statement for all of them.
      if (stale.length > 0) await tx.execute(sql.raw(`ANALYZE ${stale.map((name) => `"${name}"`).join(', ')}`));
      return stale;
    });
  }

  private async passes(): Promise<void> {
    while (this.noted && !this.stopped) {
      this.noted = false;
      try {
        const analyzed = await this.analyzeStale();
        if (analyzed.length > 0) this.logger.debug(`analyzed ${analyzed.join(', ')}`);
      } catch (error) {
        if (!this.stopped) this.logger.warn(`could not analyze: ${errorSummary(error)}`);
      }
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.settled();
  }
}
