import type { SQL } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import type { Database, Db } from './database';

/**
 * A question's hot read statements, prepared by name on each PostgreSQL connection (record 0080).
 *
 * Planning a retrieval statement (CTEs, lateral joins) cost PostgreSQL about as much as a fifth
 * of running it: ~4 of ~19 ms of a mix question's database CPU at the 16k bench. A named
 * statement is parsed once per connection, and after five executions PostgreSQL may keep a
 * generic plan (plan_cache_mode = auto) and plan it no more.
 *
 * Only statements whose rows do not depend on the plan may be named: exact searches whose order
 * is total (every ORDER BY ends on an id). An approximate search (HNSW) is not, because a generic
 * plan picks one way for every tenant: the index, where a small tenant's custom plan reads its
 * few rows exactly. Those stay unnamed and are planned each time.
 *
 * Bounded: a name holds memory in every server session of the pool, so one process names at
 * most MAX_PREPARED_TEXTS texts (a statement's text varies only with the shape of its scope:
 * an instant given or not, a vector tier), and past that runs the rest unnamed. Never behind a
 * transaction pooler (Database.pooled), where the next execution may land on a session that
 * never parsed it. Operators can keep the parse and drop generic plans with
 * `ALTER DATABASE … SET plan_cache_mode = force_custom_plan`.
 */
export const MAX_PREPARED_TEXTS = 64;

/** What a prepared read statement needs to know of where it runs. */
export type PreparableDatabase = Pick<Database, 'kind' | 'pooled'>;

/** The texts named so far (text → name), at most `max`. One per process: PREPARED_STATEMENTS. */
export class PreparedStatementNames {
  private readonly named = new Map<string, string>();

  constructor(private readonly max = MAX_PREPARED_TEXTS) {}

  /**
   * The name `text` runs under on `database`, or undefined (unnamed): only PostgreSQL without a
   * transaction pooler, and only while fewer than `max` texts are named. `label` (letters,
   * digits, underscores) says in pg_prepared_statements which statement it is.
   */
  nameFor(database: PreparableDatabase, label: string, text: string): string | undefined {
    if (database.kind !== 'postgres' || database.pooled) return undefined;
    const known = this.named.get(text);
    if (known !== undefined) return known;
    if (this.named.size >= this.max) return undefined;
    const name = `loci_${label}_${this.named.size + 1}`;
    this.named.set(text, name);
    return name;
  }

  get size(): number {
    return this.named.size;
  }
}

/** The process's names: every connection of every pool prepares from the same bounded set. */
export const PREPARED_STATEMENTS = new PreparedStatementNames();

/**
 * The rows of one read statement, run under its prepared name where PREPARED_STATEMENTS gives one
 * (otherwise as db.execute runs it: the same driver path, values and type parsing).
 */
export async function queryPreparedRows<T>(db: Db, database: PreparableDatabase, label: string, query: SQL): Promise<T[]> {
  // drizzle keeps its dialect and session on the handle; execute() itself goes through the same
  // two calls with no name.
  const { dialect } = db as unknown as { dialect: PgDialect };
  const built = dialect.sqlToQuery(query);
  const prepared = db._.session.prepareQuery(built, undefined, PREPARED_STATEMENTS.nameFor(database, label, built.sql), false);
  const result: unknown = await prepared.execute();
  return (result as { rows: T[] }).rows;
}
