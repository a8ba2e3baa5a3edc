import { SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { Database, DATABASE, Db, GraphsRepository, INGESTED_TABLES, queryRows, TableStatisticsKeeper } from '@loci/db';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * How the statistics keeper analyzes: one table a statement and a transaction, so a pass never
 * holds PGlite's only connection (and the thread it runs on) for the sum of the tables, and one
 * analyzer at a time across passes. The keepers under test are built here on a view of the
 * store that records what they send; the app's own keeper is never told of these writes. Nothing
 * is timed: the order of events is what is asserted.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const ROWS = 1_000;
/** The tables makeStale() writes, in the order a pass lists them (by name). */
const WRITTEN = ['documents', 'entities', 'entity_documents'];

type Event =
  | { kind: 'begin' | 'end'; tx: number }
  | { kind: 'statement'; tx: number | null; text: string }
  | { kind: 'probe' };

/**
 * The store as the keeper sees it, recording each transaction it opens and each statement it
 * sends (and in which transaction). `before` runs before a statement is sent, and may hold it.
 */
function observed(database: Database, before?: (text: string) => Promise<void> | void): { database: Database; events: Event[] } {
  const dialect = new PgDialect();
  const events: Event[] = [];
  let transactions = 0;
  const view = (db: Db, tx: number | null): Db =>
    new Proxy(db, {
      get(target, property) {
        if (property === 'execute') {
          return async (query: SQL) => {
            const text = dialect.sqlToQuery(query).sql.trim();
            await before?.(text);
            events.push({ kind: 'statement', tx, text });
            return target.execute(query);
          };
        }
        if (property === 'transaction') {
          return (work: (inner: Db) => Promise<unknown>) => {
            let id = 0;
            return target
              .transaction((inner) => {
                id = ++transactions;
                events.push({ kind: 'begin', tx: id });
                return work(view(inner, id));
              })
              .finally(() => events.push({ kind: 'end', tx: id }));
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { database: { ...database, kind: database.kind, db: view(database.db, null) }, events };
}

const analyzes = (events: Event[]) =>
  events.flatMap((event, index) => (event.kind === 'statement' && /^ANALYZE\b/i.test(event.text) ? [{ ...event, index }] : []));

/** Each ANALYZE names one table, inside a transaction that runs no other ANALYZE; returns the tables in order. */
function expectOneTableEach(events: Event[]): string[] {
  const statements = analyzes(events);
  for (const statement of statements) expect(statement.text).toMatch(/^ANALYZE "\w+"$/);
  const transactions = statements.map((statement) => statement.tx);
  expect(transactions).not.toContain(null);
  expect(new Set(transactions).size).toBe(statements.length);
  return statements.map((statement) => /"(\w+)"/.exec(statement.text)![1]);
}

describe(`statistics keeper's passes (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let database: Database;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false' });
    database = t.app.get<Database>(DATABASE);
  });
  // A holder left waiting or holding by a failed test would keep its connection, and close() waiting for it.
  const holders: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const release of holders.splice(0)) await release();
  });
  afterAll(() => t?.close());

  /** A new tenant's graph with `rows` documents, entities and links between them: enough to make those three tables stale. */
  const makeStale = async (rows = ROWS): Promise<{ tenantId: string; graphId: number }> => {
    const tenant = await createTenant(t.app);
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenant.id);
    await database.db.execute(sql`INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text)
      SELECT ${tenant.id}, ${graph.id}, 'document', 'doc ' || i, md5(${tenant.id} || i), 'text ' || i FROM generate_series(1, ${rows}) AS i`);
    await database.db.execute(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name)
      SELECT ${tenant.id}, ${graph.id}, 'Entity ' || i, 'entity ' || i FROM generate_series(1, ${rows}) AS i`);
    await database.db.execute(sql`INSERT INTO entity_documents (tenant_id, entity_id, document_id)
      SELECT e.tenant_id, e.id, d.id FROM entities e JOIN documents d ON d.tenant_id = e.tenant_id AND d.name = 'doc ' || split_part(e.name, ' ', 2)
      WHERE e.tenant_id = ${tenant.id}`);
    await changesReported(rows);
    return { tenantId: tenant.id, graphId: graph.id };
  };

  /**
   * Until the server's counters show the inserts: a connection reports its changes when idle, up
   * to a second or more later under load, and a report arriving after a table's analyze makes it
   * stale again (the keeper's rule reads the counter), so a later pass would analyze it twice.
   */
  const changesReported = async (rows: number) => {
    for (;;) {
      const [{ n }] = await queryRows<{ n: number }>(
        database.db,
        sql`SELECT min(n_mod_since_analyze)::int AS n FROM pg_stat_user_tables WHERE relname IN ('documents', 'entities', 'entity_documents')`,
      );
      if (Number(n) >= rows) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const analyzeCounts = async (): Promise<Record<string, number>> => {
    const rows = await queryRows<{ name: string; n: number }>(
      database.db,
      sql`SELECT relname AS name, (analyze_count + autoanalyze_count)::int AS n FROM pg_stat_user_tables WHERE relname IN ('documents', 'entities', 'entity_documents')`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.n)]));
  };

  /**
   * Another process's analyzer on PostgreSQL: a transaction on another pooled connection that
   * waits for the analyze lock (`wait`) or takes it at once, and holds it until released.
   */
  const holdLock = (wait: boolean) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const done = database.db.transaction(async (tx) => {
      await tx.execute(wait ? sql`SELECT pg_advisory_xact_lock(hashtext('loci.analyze'))` : sql`SELECT pg_try_advisory_xact_lock(hashtext('loci.analyze'))`);
      await released;
    });
    const handle = { release: async () => (release(), await done) };
    holders.push(handle.release);
    return handle;
  };

  /** Until a transaction of the store waits for an advisory lock (the holder queued behind the pass's). */
  const lockAwaited = async () => {
    for (;;) {
      const [{ n }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`);
      if (Number(n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /** Until the holder's transaction has the analyze lock. */
  const lockHeld = async () => {
    for (;;) {
      const [{ n }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted`);
      if (Number(n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it('analyzes each stale table in a statement and a transaction of its own', async () => {
    await makeStale();
    const { database: store, events } = observed(database);
    const analyzed = await new TableStatisticsKeeper(store).analyzeStale();
    expect(analyzed).toEqual(WRITTEN);
    expect(expectOneTableEach(events)).toEqual(WRITTEN);
  });

  it("analyzes every ingested table one a transaction when a graph's estimate is off", async () => {
    // A store the tables' rule finds current (3 000 rows analyzed), then a graph too small to pass it.
    await makeStale(3 * ROWS);
    await new TableStatisticsKeeper(database).analyzeStale();
    const small = await makeStale(150);
    const { database: store, events } = observed(database);
    const keeper = new TableStatisticsKeeper(store);
    expect(await keeper.analyzeStale()).toEqual([]);

    for (let i = 0; i < 50; i++) keeper.noteWrites(small);
    await keeper.settled();
    expect(expectOneTableEach(events).sort()).toEqual([...INGESTED_TABLES].sort());
    expect(await keeper.analyzeStaleGraphs()).toEqual([]);
  });

  (onPostgres ? it.skip : it)("lets a query sent during one table's ANALYZE run before the next table's (PGlite's one connection)", async () => {
    await makeStale();
    let probe: Promise<unknown> | undefined;
    const { database: store, events } = observed(database, (text) => {
      // Sent on the store itself, not awaited: on PGlite it queues behind the pass's transaction.
      if (/^ANALYZE\b/i.test(text) && !probe) probe = database.db.execute(sql`SELECT 1`).then(() => events.push({ kind: 'probe' }));
    });
    await new TableStatisticsKeeper(store).analyzeStale();
    await probe;
    const statements = analyzes(events);
    expect(statements.length).toBeGreaterThan(1);
    const second = events.findIndex((event) => event.kind === 'begin' && event.tx === statements[1].tx);
    expect(events.findIndex((event) => event.kind === 'probe')).toBeLessThan(second);
  });

  it('two passes at once analyze each stale table once', async () => {
    await makeStale();
    const before = await analyzeCounts();
    const [first, second] = await Promise.all([new TableStatisticsKeeper(database).analyzeStale(), new TableStatisticsKeeper(database).analyzeStale()]);
    expect([...first, ...second].sort()).toEqual(WRITTEN);
    const after = await analyzeCounts();
    for (const table of WRITTEN) expect(after[table] - before[table]).toBe(1);
  });

  (onPostgres ? it : it.skip)('skips while another process holds the lock', async () => {
    await makeStale();
    const holder = holdLock(false);
    await lockHeld();
    const { database: store, events } = observed(database);
    expect(await new TableStatisticsKeeper(store).analyzeStale()).toEqual([]);
    expect(analyzes(events)).toEqual([]);
    await holder.release();
    expect(await new TableStatisticsKeeper(database).analyzeStale()).toEqual(WRITTEN);
  });

  (onPostgres ? it : it.skip)('stops when another process takes the lock between two tables, which then analyzes the rest', async () => {
    await makeStale();
    let holder: ReturnType<typeof holdLock> | undefined;
    const { database: store } = observed(database, async (text) => {
      if (!/^ANALYZE\b/i.test(text) || holder) return;
      // Queued for the lock before this table's transaction ends, so it takes the lock next.
      holder = holdLock(true);
      await lockAwaited();
    });
    expect(await new TableStatisticsKeeper(store).analyzeStale()).toEqual(WRITTEN.slice(0, 1));
    await holder!.release();
    expect(await new TableStatisticsKeeper(database).analyzeStale()).toEqual(WRITTEN.slice(1));
  });

  (onPostgres ? it : it.skip)("checks a graph again at the next pass when another process took the lock before every table was analyzed", async () => {
    await makeStale(3 * ROWS);
    await new TableStatisticsKeeper(database).analyzeStale();
    const small = await makeStale(150);
    let holder: ReturnType<typeof holdLock> | undefined;
    const { database: store } = observed(database, async (text) => {
      if (!/^ANALYZE\b/i.test(text) || holder) return;
      holder = holdLock(true);
      await lockAwaited();
    });
    const keeper = new TableStatisticsKeeper(store);
    expect(await keeper.analyzeStale()).toEqual([]);
    for (let i = 0; i < 50; i++) keeper.noteWrites(small);
    await keeper.settled();
    await holder!.release();
    expect(await keeper.analyzeStaleGraphs()).toEqual([small]);
  });
});
