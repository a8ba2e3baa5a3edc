import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { SQL, sql } from 'drizzle-orm';
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

/**
 * One analyzer at a time across every process on the store. Transaction-level, taken again by each
 * of a pass's short transactions (the stale tables' list, then each table's analyze): it ends with
 * its transaction, so a pass that fails or is cut off never leaves it held, and a pooled
 * connection never carries it on. A session-level lock held for the whole pass would need one
 * connection checked out for the pass and a connection dropped, not returned, when its unlock
 * fails. The price: between two of a pass's transactions another process may take the lock; the
 * pass then stops (the taker analyzes what is still stale: see analyzeStale).
 */
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

/** A graph (tenant and graph id) ingestion wrote to: the keeper also watches its own estimates. */
export interface WrittenGraph {
  tenantId: string;
  graphId: number;
}

/**
 * A graph's own check is due once this many pieces (chunks, or short texts written whole) were
 * written to it since the last check, and at least GRAPH_CHECK_GROWTH times as many as this
 * process had written to it before: a few checks over a graph's life (logarithmic in what is
 * written), never one per piece.
 */
export const GRAPH_CHECK_MIN_PIECES = 50;
const GRAPH_CHECK_GROWTH = 0.5;

/**
 * A graph's estimate is stale when it is off by more than this factor either way. The plans that
 * matter (an HNSW scan that stops after k against an exact sort of the graph's rows) change with
 * the order of magnitude, not with 20%.
 */
const GRAPH_ESTIMATE_FACTOR = 2;

/** A watched graph: pieces written to it since its last check, and before it by this process. */
interface GraphWatch extends WrittenGraph {
  piecesNoted: number;
  piecesChecked: number;
}

/**
 * The graph's size the check compares: its entities, which every piece writes (a short gb text
 * writes no chunk), read through (tenant, graph, name)'s index.
 */
const graphEntitiesSql = ({ tenantId, graphId }: WrittenGraph) =>
  sql`SELECT count(*)::float8 AS n FROM entities WHERE tenant_id = ${tenantId} AND graph_id = ${graphId}`;

/** The planner's estimate of the same rows, with literals as a custom plan sees them (planning only). */
const graphEntitiesEstimateSql = ({ tenantId, graphId }: WrittenGraph) =>
  sql.raw(`EXPLAIN (FORMAT JSON) SELECT 1 FROM entities WHERE tenant_id = '${uuidLiteral(tenantId)}'::uuid AND graph_id = ${Math.trunc(Number(graphId))}`);

/** A tenant id spliced into EXPLAIN's text: only a UUID's characters pass. */
function uuidLiteral(value: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(value)) throw new Error(`not a tenant id: ${value}`);
  return value;
}

const existingTablesSql = (tables: readonly string[]) =>
  sql`SELECT wanted.name FROM unnest(${`{${tables.join(',')}}`}::text[]) AS wanted(name) WHERE to_regclass(wanted.name) IS NOT NULL`;

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
 * get it skips, the holder is analyzing anyway). A pass analyzes one table a transaction, so
 * others' statements run between tables (see analyzeEach). A failed pass is logged, never
 * thrown: stale statistics make questions slower, not wrong.
 *
 * The table-wide rule misses a graph small against its tables: a tenant of a tenth of a large
 * store can grow from nothing without its tables passing 10% of changes, and is planned as if
 * empty (the issue-13 failure; measured in docs/BENCHMARKS.md, "graphs built through the API").
 * So the ingester names the graph it wrote to, and the keeper also checks that graph's own
 * estimate: after GRAPH_CHECK_MIN_PIECES pieces, and then each time this process has written
 * half as much again to it, it counts the graph's entities against the planner's estimate of
 * them (EXPLAIN, nothing run) and analyzes the ingested tables when the two differ by more than
 * GRAPH_ESTIMATE_FACTOR. A graph too small to show in the sampled statistics even after an
 * analyze is therefore analyzed for again only when it has grown by half: a few analyzes over
 * its life, not one a pass.
 */
@Injectable()
export class TableStatisticsKeeper implements OnApplicationShutdown {
  private readonly logger = new Logger('TableStatistics');
  private running?: Promise<void>;
  private noted = false;
  private stopped = false;
  private readonly tables = INGESTED_TABLES;
  private readonly graphs = new Map<string, GraphWatch>();

  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Rows were committed to the ingested tables (one chunk's, in `graph` when given): analyze
   * them in the background if that made the tables, or that graph's estimate, stale.
   */
  noteWrites(graph?: WrittenGraph): void {
    if (this.stopped) return;
    if (graph) {
      const key = graphKey(graph);
      const watch = this.graphs.get(key) ?? { tenantId: graph.tenantId, graphId: graph.graphId, piecesNoted: 0, piecesChecked: 0 };
      watch.piecesNoted += 1;
      this.graphs.set(key, watch);
    }
    this.noted = true;
    this.running ??= this.passes().finally(() => (this.running = undefined));
  }

  /** Resolves when no pass runs or is due (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /**
   * Analyzes the stale tables now; returns the names of those it analyzed (empty: nothing was
   * stale, or another process holds the lock). Each table is analyzed only if it is still stale in
   * its own transaction: a pass that took the lock between two of another's tables lists tables
   * the other is about to analyze, and whichever comes second finds them current.
   */
  async analyzeStale(): Promise<string[]> {
    const stale = await this.underLock(async (db) => (await queryRows<{ name: string }>(db, staleTablesSql(this.tables))).map((r) => r.name));
    if (!stale) return [];
    return (await this.analyzeEach(stale, { onlyIfStale: true })).analyzed;
  }

  /**
   * Checks the watched graphs whose check is due (see the class); analyzes every ingested table
   * once if any of them is estimated off by more than GRAPH_ESTIMATE_FACTOR. Returns the graphs
   * found stale (empty: none, or another process holds the lock and they wait for the next pass).
   */
  async analyzeStaleGraphs(): Promise<WrittenGraph[]> {
    const due = [...this.graphs.values()].filter(
      (watch) => watch.piecesNoted >= Math.max(GRAPH_CHECK_MIN_PIECES, GRAPH_CHECK_GROWTH * watch.piecesChecked),
    );
    if (due.length === 0) return [];
    const checked = await this.underLock(async (db) => {
      const stale: Array<{ watch: GraphWatch; pieces: number }> = [];
      for (const watch of due) {
        const [{ n }] = await queryRows<{ n: number }>(db, graphEntitiesSql(watch));
        const estimated = await planRows(db, graphEntitiesEstimateSql(watch));
        const counted = Number(n);
        if (Math.max(estimated, 1) * GRAPH_ESTIMATE_FACTOR < counted || estimated > Math.max(counted, 1) * GRAPH_ESTIMATE_FACTOR) {
          stale.push({ watch, pieces: watch.piecesNoted });
        }
        watch.piecesChecked += watch.piecesNoted;
        watch.piecesNoted = 0;
        // A graph deleted meanwhile (nothing left) is forgotten; the next write watches it again.
        if (counted === 0) this.graphs.delete(graphKey(watch));
      }
      const tables = stale.length > 0 ? (await queryRows<{ name: string }>(db, existingTablesSql(this.tables))).map((r) => r.name) : [];
      return { stale, tables };
    });
    if (!checked || checked.stale.length === 0) return [];
    const { complete } = await this.analyzeEach(checked.tables, { onlyIfStale: false });
    if (!complete) {
      // Another process took the lock between two tables (and analyzes only what its own rule
      // finds stale), or this one is stopping: these graphs are checked again at the next pass,
      // as if this one had not got the lock.
      for (const { watch, pieces } of checked.stale) {
        watch.piecesChecked -= pieces;
        watch.piecesNoted += pieces;
        this.graphs.set(graphKey(watch), watch);
      }
      return [];
    }
    return checked.stale.map(({ watch }) => ({ tenantId: watch.tenantId, graphId: watch.graphId }));
  }

  /** Runs `work` in a transaction holding the analyze lock; undefined when another process holds it. */
  private underLock<T>(work: (db: Db) => Promise<T>): Promise<T | undefined> {
    return this.database.db.transaction(async (tx) => {
      const db = tx as unknown as Db;
      const [{ locked }] = await queryRows<{ locked: boolean }>(db, ANALYZE_LOCK_SQL);
      return locked ? work(db) : undefined;
    });
  }

  /**
   * Analyzes `tables` one at a time, each in a short transaction of its own, the event loop
   * turning between them. One ANALYZE of every table held PGlite's only connection, and the
   * process's thread it runs on, for the sum of the tables (549 ms at 5 000 chunks and 300 000
   * postings); now the longest hold is the largest table's, and queries that queued meanwhile run
   * between two tables. On PostgreSQL each table's locks and snapshot are held for that table only.
   * Stops, incomplete, at the first table whose transaction does not get the lock.
   */
  private async analyzeEach(tables: readonly string[], options: { onlyIfStale: boolean }): Promise<{ analyzed: string[]; complete: boolean }> {
    const analyzed: string[] = [];
    for (const name of tables) {
      // Shutdown waits for the pass (settled()): it stops between tables; what is left stays stale for the next pass.
      if (this.stopped) return { analyzed, complete: false };
      await new Promise<void>((resolve) => setImmediate(resolve));
      const done = await this.underLock(async (db) => {
        if (options.onlyIfStale && (await queryRows(db, staleTablesSql([name]))).length === 0) return false;
        // ANALYZE may run in a transaction block (VACUUM may not), so it shares the lock's.
        await db.execute(sql.raw(`ANALYZE "${name}"`));
        return true;
      });
      if (done === undefined) return { analyzed, complete: false };
      if (done) analyzed.push(name);
    }
    return { analyzed, complete: true };
  }

  private async passes(): Promise<void> {
    while (this.noted && !this.stopped) {
      this.noted = false;
      try {
        const analyzed = await this.analyzeStale();
        if (analyzed.length > 0) this.logger.debug(`analyzed ${analyzed.join(', ')}`);
        // A table-wide analyze covers every graph; the graphs' own checks still run (their counts move on).
        const graphs = await this.analyzeStaleGraphs();
        if (graphs.length > 0) this.logger.debug(`analyzed for ${graphs.length} graph(s) estimated off`);
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

const graphKey = ({ tenantId, graphId }: WrittenGraph) => `${tenantId}:${graphId}`;

/** EXPLAIN (FORMAT JSON)'s row estimate of the top plan node (drivers return the JSON as text or parsed). */
async function planRows(db: Db, explain: SQL): Promise<number> {
  const [row] = await queryRows<Record<string, unknown>>(db, explain);
  const json = Object.values(row)[0];
  const [plan] = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: { 'Plan Rows': number } }>;
  return Number(plan.Plan['Plan Rows']);
}
