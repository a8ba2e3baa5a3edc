import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from '../database';
import type { OwnVectorsState } from '../schema';
import { STORED_VECTOR_WIDTHS, SearchVectorColumn, tierColumn, vectorColumnAt } from '../vector-width';

/** Where a graph's bulk load is: none (its vectors are in the shared columns) or its own tier's state. */
export type BulkLoadState = 'none' | OwnVectorsState;

export interface BulkLoadRow {
  state: BulkLoadState;
  startedAt: Date | null;
}

/** The searched vectors of each graph table, by their shared full-width names (vector-width.ts). */
const SEARCHED_VECTORS: ReadonlyArray<{ table: 'chunks' | 'entities' | 'edges'; columns: SearchVectorColumn[] }> = [
  { table: 'chunks', columns: ['embedding', 'summary_embedding'] },
  { table: 'entities', columns: ['embedding'] },
  { table: 'edges', columns: ['embedding'] },
];

/** One HNSW index of a graph's own: its name, table and column. */
export interface OwnIndex {
  name: string;
  table: string;
  column: string;
}

/**
 * The graph's own HNSW indexes, one per own column and width: partial on the graph's id (graph
 * ids are unique across tenants), so a search of the graph proves the predicate from its own
 * `graph_id = $n` and no other graph's statement ever plans on it. Named after the graph, so a
 * build that died is found again by name.
 */
export function ownIndexesOf(graphId: number): OwnIndex[] {
  if (!Number.isSafeInteger(graphId) || graphId < 1) throw new RangeError(`not a graph id: ${graphId}`);
  return SEARCHED_VECTORS.flatMap(({ table, columns }) =>
    columns.flatMap((column) =>
      STORED_VECTOR_WIDTHS.map((width) => {
        const own = vectorColumnAt(tierColumn(column, 'own'), width);
        return { name: `graph_${graphId}_${table}_${own}`, table, column: own };
      }),
    ),
  );
}

/**
 * The store's side of bulk mode (docs/decisions/0029-bulk-mode.md, "Bulk mode: a graph's own HNSW tier"):
 * a graph's move to its own vector columns, its state, and the building of its own indexes.
 * Every method names the tenant and the graph; index statements name the graph only through
 * an id the caller read from the tenant's own graph row.
 */
@Injectable()
export class BulkLoadRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async state(tenantId: string, graphId: number, db: Db = this.database.db): Promise<BulkLoadRow> {
    const [row] = await queryRows<{ own_vectors: OwnVectorsState | null; bulk_load_started_at: string | Date | null }>(
      db,
      sql`SELECT own_vectors, bulk_load_started_at FROM graphs WHERE tenant_id = ${tenantId} AND id = ${graphId}`,
    );
    return { state: row?.own_vectors ?? 'none', startedAt: row?.bulk_load_started_at ? new Date(row.bulk_load_started_at) : null };
  }

  /**
   * The graph's state, with its row locked against every chunk being written to it (they hold
   * it FOR SHARE: GraphWritesRepository.vectorTierForWrite) until the transaction ends.
   */
  async lockState(tx: Db, tenantId: string, graphId: number): Promise<BulkLoadState> {
    const [row] = await queryRows<{ own_vectors: OwnVectorsState | null }>(
      tx,
      sql`SELECT own_vectors FROM graphs WHERE tenant_id = ${tenantId} AND id = ${graphId} FOR UPDATE`,
    );
    return row?.own_vectors ?? 'none';
  }

  async setState(tx: Db, tenantId: string, graphId: number, state: OwnVectorsState): Promise<void> {
    await tx.execute(sql`UPDATE graphs SET own_vectors = ${state},
        bulk_load_started_at = CASE WHEN ${state} = 'loading' THEN now() ELSE bulk_load_started_at END
      WHERE tenant_id = ${tenantId} AND id = ${graphId}`);
  }

  /**
   * Graphs loading in bulk with nothing going on for `idleMs`: begun that long ago, no document
   * waiting or being ingested, none changed since. Their client (the CLI) most likely died
   * before it could finish them; every tenant's, since the worker serves all.
   */
  async idleLoads(idleMs: number): Promise<Array<{ tenantId: string; graphId: number }>> {
    const idle = sql`now() - ${idleMs} * interval '1 millisecond'`;
    const rows = await queryRows<{ tenant_id: string; id: number }>(
      this.database.db,
      sql`SELECT g.tenant_id, g.id FROM graphs g
        WHERE g.own_vectors = 'loading' AND g.bulk_load_started_at < ${idle}
          AND NOT EXISTS (SELECT 1 FROM documents d
            WHERE d.tenant_id = g.tenant_id AND d.graph_id = g.id
              AND (d.status IN ('pending', 'processing') OR d.updated_at > ${idle}))`,
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, graphId: Number(row.id) }));
  }

  /** Waits for other bulk loads beginning (until the transaction ends): their count is checked against a maximum. */
  async serializeBegins(tx: Db): Promise<void> {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('loci.bulk-load.begin'))`);
  }

  /** Graphs of the whole store that keep their own vectors (each has its own indexes, or will). */
  async graphsWithOwnVectors(db: Db = this.database.db): Promise<number> {
    const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM graphs WHERE own_vectors IS NOT NULL`);
    return Number(row.n);
  }

  /**
   * Moves the graph's searched vectors from the shared columns to its own: each row gets its
   * vectors in `own_*` and nulls in the shared columns, so the shared HNSW indexes stop holding
   * them (the dead entries go at the next vacuum) and no insertion into them is made. One
   * statement a table. Rows already moved are not touched, so running it again (a load that
   * ends sweeps up a row written in the shared columns while it began) costs only the scan.
   * Returns the rows moved per table.
   */
  async moveToOwnColumns(db: Db, tenantId: string, graphId: number): Promise<Record<'chunks' | 'entities' | 'edges', number>> {
    const moved = { chunks: 0, entities: 0, edges: 0 };
    for (const { table, columns } of SEARCHED_VECTORS) {
      const pairs = columns.flatMap((column) =>
        STORED_VECTOR_WIDTHS.map((width) => ({ shared: vectorColumnAt(column, width), own: vectorColumnAt(tierColumn(column, 'own'), width) })),
      );
      const assignments = pairs.flatMap(({ shared, own }) => [`${own} = coalesce(${shared}, ${own})`, `${shared} = NULL`]).join(', ');
      const anyShared = pairs.map(({ shared }) => `${shared} IS NOT NULL`).join(' OR ');
      const [row] = await queryRows<{ n: number }>(
        db,
        sql`WITH moved AS (
            UPDATE ${sql.raw(table)} SET ${sql.raw(assignments)}
            WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} AND (${sql.raw(anyShared)})
            RETURNING 1)
          SELECT count(*)::int AS n FROM moved`,
      );
      moved[table] = Number(row.n);
    }
    return moved;
  }

  /** The own columns of the graph that hold at least one vector: the ones worth an index. */
  async ownColumnsInUse(tenantId: string, graphId: number): Promise<OwnIndex[]> {
    const wanted: OwnIndex[] = [];
    for (const index of ownIndexesOf(graphId)) {
      const [row] = await queryRows<{ used: boolean }>(
        this.database.db,
        sql`SELECT EXISTS (SELECT 1 FROM ${sql.raw(index.table)}
          WHERE tenant_id = ${tenantId} AND graph_id = ${graphId} AND ${sql.raw(index.column)} IS NOT NULL) AS used`,
      );
      if (row.used) wanted.push(index);
    }
    return wanted;
  }

  /**
   * Own indexes whose graph is gone (its tenant was deleted): the graph's rows went with it,
   * but an index is not a row, and each one left would still be checked by every insert into its
   * table and considered by every plan of it.
   */
  async ownIndexesOfDeletedGraphs(): Promise<string[]> {
    const rows = await queryRows<{ name: string }>(
      this.database.db,
      sql`SELECT c.relname AS name FROM pg_class c
        WHERE c.relkind = 'i' AND c.relnamespace = current_schema()::regnamespace
          AND c.relname ~ '^graph_[0-9]+_(chunks|entities|edges)_own_'
          AND NOT EXISTS (SELECT 1 FROM graphs g WHERE g.id = substring(c.relname FROM '^graph_([0-9]+)_')::bigint)
        ORDER BY c.relname`,
    );
    return rows.map((row) => row.name);
  }

  /** Drops an own index without blocking the table's other users (outside any transaction). */
  async dropOwnIndex(name: string): Promise<void> {
    if (!/^graph_[0-9]+_(chunks|entities|edges)_own_[a-z0-9_]+$/.test(name)) throw new RangeError(`not an own index: ${name}`);
    await this.database.db.execute(sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`));
  }

  /** Whether the index exists and, if it does, whether it is valid (a concurrent build that died leaves it invalid). */
  async indexState(name: string): Promise<'missing' | 'valid' | 'invalid'> {
    const [row] = await queryRows<{ valid: boolean }>(
      this.database.db,
      sql`SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE c.relname = ${name} AND c.relnamespace = current_schema()::regnamespace`,
    );
    if (!row) return 'missing';
    return row.valid ? 'valid' : 'invalid';
  }

  /**
   * Builds one of the graph's own HNSW indexes without blocking writes to the table (every
   * tenant's rows are in it): CREATE INDEX CONCURRENTLY, outside any transaction, with
   * `memoryMb` of maintenance_work_mem on its session (an HNSW build that outgrows it goes on
   * several times slower: 115 s against 37 s for 80 000 facts at 64 MB and 512 MB, BENCHMARKS).
   * An index of the same name left invalid by a build that died is dropped first, the same way.
   */
  async buildOwnIndex(graphId: number, index: OwnIndex, memoryMb: number): Promise<void> {
    if (!ownIndexesOf(graphId).some((own) => own.name === index.name && own.table === index.table && own.column === index.column)) {
      throw new RangeError(`${index.name} is not an index of graph ${graphId}`);
    }
    if (!Number.isInteger(memoryMb) || memoryMb < 1) throw new RangeError(`not a memory size in MB: ${memoryMb}`);
    if ((await this.indexState(index.name)) === 'invalid') await this.dropOwnIndex(index.name);
    const build = sql.raw(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${index.name} ON ${index.table} USING hnsw (${index.column} halfvec_cosine_ops) WHERE graph_id = ${graphId}`,
    );
    if (!this.database.onOneSession) {
      await this.database.db.execute(build);
      return;
    }
    await this.database.onOneSession(async (session) => {
      await session.execute(sql.raw(`SET maintenance_work_mem = '${memoryMb}MB'`));
      await session.execute(build);
      await session.execute(sql`RESET maintenance_work_mem`);
    });
  }
}
