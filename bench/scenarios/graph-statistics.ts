import { Client } from 'pg';

/**
 * What the planner believes about one graph, beside what is true: for each table retrieval
 * searches by graph, the rows `tenant_id = … AND graph_id = …` selects as EXPLAIN estimates
 * them (the estimate that decides between an HNSW scan that stops after k and an exact sort of
 * the graph's rows) against count(*), and the table's analyze history from
 * pg_stat_user_tables. Read on a plain connection; EXPLAIN without ANALYZE runs nothing.
 */

/** The tables whose per-graph scans retrieval plans (the ones migration 0016 gave dependency statistics). */
export const GRAPH_SCAN_TABLES = ['documents', 'chunks', 'chunk_terms', 'entities', 'edges'] as const;

export interface TableStatistics {
  table: string;
  /** Rows of the graph, counted. */
  graph_rows: number;
  /** The planner's estimate of the same rows (EXPLAIN's Plan Rows of the graph's scan). */
  graph_rows_estimated: number;
  /** estimated / counted (null when the graph has no rows there). */
  estimate_ratio: number | null;
  /** The whole table: rows as the last analyze saw them (pg_class.reltuples; -1: never analyzed) and live rows now (the server's counter). */
  table_reltuples: number;
  table_live_rows: number;
  /** Rows changed since the table's last analyze (the server's counter; reported by a backend when it goes idle). */
  n_mod_since_analyze: number;
  last_analyze: string | null;
  last_autoanalyze: string | null;
  analyze_count: number;
  autoanalyze_count: number;
  /** An analyze (Loci's own or autovacuum's) ran after `since` (the run's start). */
  analyzed_since_start: boolean;
}

export interface GraphStatisticsSnapshot {
  /** When the snapshot was read, and what it follows (e.g. "ingested": the last document processed). */
  at: string;
  label: string;
  /** The server's autovacuum setting: with it off, only Loci's statistics keeper analyzes. */
  autovacuum: string;
  tables: TableStatistics[];
}

interface PlanJson {
  Plan: { 'Plan Rows': number };
}

export async function graphStatistics(
  databaseUrl: string,
  scope: { tenantId: string; graphId: number },
  since: Date,
  label: string,
): Promise<GraphStatisticsSnapshot> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const autovacuum = (await client.query<{ value: string }>(`SELECT current_setting('autovacuum') AS value`)).rows[0].value;
    const tables: TableStatistics[] = [];
    for (const table of GRAPH_SCAN_TABLES) {
      const where = `tenant_id = '${uuid(scope.tenantId)}'::uuid AND graph_id = ${Number(scope.graphId)}`;
      // Literals, not parameters: the estimate of the values themselves, as a custom plan gets.
      const explained = await client.query<{ 'QUERY PLAN': PlanJson[] }>(`EXPLAIN (FORMAT JSON) SELECT 1 FROM "${table}" WHERE ${where}`);
      const estimated = Number(explained.rows[0]['QUERY PLAN'][0].Plan['Plan Rows']);
      const counted = Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE ${where}`)).rows[0].n);
      const { rows } = await client.query<{
        reltuples: number;
        n_live_tup: string | null;
        n_mod_since_analyze: string | null;
        last_analyze: Date | null;
        last_autoanalyze: Date | null;
        analyze_count: string | null;
        autoanalyze_count: string | null;
      }>(
        `SELECT c.reltuples, s.n_live_tup, s.n_mod_since_analyze, s.last_analyze, s.last_autoanalyze, s.analyze_count, s.autoanalyze_count
         FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
         WHERE c.oid = to_regclass($1)`,
        [table],
      );
      const row = rows[0];
      const latest = Math.max(row?.last_analyze?.getTime() ?? 0, row?.last_autoanalyze?.getTime() ?? 0);
      tables.push({
        table,
        graph_rows: counted,
        graph_rows_estimated: estimated,
        estimate_ratio: counted > 0 ? Math.round((estimated / counted) * 1000) / 1000 : null,
        table_reltuples: Number(row?.reltuples ?? -1),
        table_live_rows: Number(row?.n_live_tup ?? 0),
        n_mod_since_analyze: Number(row?.n_mod_since_analyze ?? 0),
        last_analyze: row?.last_analyze?.toISOString() ?? null,
        last_autoanalyze: row?.last_autoanalyze?.toISOString() ?? null,
        analyze_count: Number(row?.analyze_count ?? 0),
        autoanalyze_count: Number(row?.autoanalyze_count ?? 0),
        analyzed_since_start: latest >= since.getTime(),
      });
    }
    return { at: new Date().toISOString(), label, autovacuum, tables };
  } finally {
    await client.end();
  }
}

function uuid(value: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new Error(`not a uuid: ${value}`);
  return value;
}

/** One line a table: the graph's rows estimated against counted, and who analyzed the table when. */
export function statisticsLines(snapshot: GraphStatisticsSnapshot): string[] {
  return [
    `statistics (${snapshot.label}, ${snapshot.at}; autovacuum ${snapshot.autovacuum}):`,
    ...snapshot.tables.map(
      (t) =>
        `  ${t.table.padEnd(12)} graph rows ${String(t.graph_rows).padStart(7)}  estimated ${String(t.graph_rows_estimated).padStart(7)}` +
        `  (x${t.estimate_ratio ?? '-'})  table ${t.table_live_rows} live, ${t.table_reltuples} at last analyze, ${t.n_mod_since_analyze} changed since;` +
        ` analyzed ${t.analyzed_since_start ? 'during the run' : 'NOT during the run'} (last ${t.last_analyze ?? 'never'}, auto ${t.last_autoanalyze ?? 'never'})`,
    ),
  ];
}
