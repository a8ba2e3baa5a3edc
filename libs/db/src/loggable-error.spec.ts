import { sql } from 'drizzle-orm';
import { StoreUnavailableError } from '@loci/common';
import { errorLogSerializer, errorSummary, loggableError } from './loggable-error';
import { PgliteDatabase } from './pglite.database';
import { isStoreUnavailable } from './postgres-errors';
import { PostgresDatabase } from './postgres.database';

const SECRET = 'Zanzibar-quartz-7731';

async function failure(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the work to fail');
}

describe('loggableError', () => {
  let store: PgliteDatabase;
  beforeAll(async () => {
    store = await PgliteDatabase.open();
  });
  afterAll(() => store.close());

  it("keeps a failed statement's SQLSTATE and opening, never its parameters or the quoted value", async () => {
    const error = await failure(() => store.db.execute(sql`select ${SECRET}::uuid as id`));
    expect(String((error as Error).message)).toContain(SECRET); // what drizzle would have logged

    const record = loggableError(error);
    const text = JSON.stringify(record) + errorSummary(error);
    expect(text).not.toContain(SECRET);
    expect(record).toMatchObject({ type: 'DrizzleQueryError', message: 'Failed query', statement: { head: 'select $1::uuid as id', params: 1 } });
    expect(record.cause).toMatchObject({ sqlState: '22P02' });
    expect(errorSummary(error)).toMatch(/DrizzleQueryError: Failed query \(select \$1::uuid as id\) ← DatabaseError \[22P02\]: invalid input syntax for type uuid: "\[20 chars\]"/);
  });

  it("keeps the constraint's name a unique violation reports, not the key's value", async () => {
    await store.db.execute(sql`create table if not exists t_unique (name text constraint t_unique_name unique)`);
    await store.db.execute(sql`insert into t_unique values (${SECRET})`);
    const error = await failure(() => store.db.execute(sql`insert into t_unique values (${SECRET})`));
    const summary = errorSummary(error);
    expect(summary).toContain('[23505]: duplicate key value violates unique constraint "t_unique_name"');
    expect(JSON.stringify(loggableError(error)) + summary).not.toContain(SECRET);
  });

  it('replaces quoted runs of other messages by their length (JSON.parse quotes its input)', () => {
    const error = (() => {
      try {
        return JSON.parse(`${SECRET} is not json`);
      } catch (e) {
        return e;
      }
    })();
    expect(JSON.stringify(loggableError(error))).not.toContain('Zanzibar');
    expect(loggableError(error).type).toBe('SyntaxError');
  });

  it('serializes pino-http records by their raw error and leaves records as they are', async () => {
    const error = await failure(() => store.db.execute(sql`select ${SECRET}::uuid`));
    const record = errorLogSerializer({ type: 'Error', message: String((error as Error).message), raw: error });
    expect(JSON.stringify(record)).not.toContain(SECRET);
    expect(errorLogSerializer(record)).toBe(record);
  });
});

describe('isStoreUnavailable', () => {
  it('is true for a closed PGlite, false for a statement the store refused', async () => {
    const store = await PgliteDatabase.open();
    const refused = await failure(() => store.db.execute(sql`select * from no_such_table`));
    expect(isStoreUnavailable(refused)).toBe(false);
    await store.close();
    const closed = await failure(() => store.db.execute(sql`select 1`));
    expect(isStoreUnavailable(closed)).toBe(true);
  });

  it("is true for PostgreSQL refusing the connection, in a statement and in a transaction's checkout", async () => {
    // Nothing listens on port 1: every checkout is refused.
    const store = PostgresDatabase.connect('postgres://loci@127.0.0.1:1/loci', 1);
    try {
      expect(isStoreUnavailable(await failure(() => store.db.execute(sql`select 1`)))).toBe(true);
      expect(isStoreUnavailable(await failure(() => store.db.transaction(async () => undefined)))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("is false for a bare socket error that is not the store's (Redis's is limits_unavailable)", () => {
    const redisLike = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(isStoreUnavailable(redisLike)).toBe(false);
  });

  it('is true for the server terminating the connection (57P01) and for StoreUnavailableError', () => {
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(isStoreUnavailable(terminated)).toBe(true);
    expect(isStoreUnavailable(new StoreUnavailableError())).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
  });
});
