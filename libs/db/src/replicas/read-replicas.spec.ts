import { sql, SQL } from 'drizzle-orm';
import { runAsTenant } from '@loci/common';
import { PgDialect } from 'drizzle-orm/pg-core';
import { queryRows, type Database, type Db } from '../database';
import { ReadReplicas } from './read-replicas';
import { ReadRouter } from './read-router';
import { SharedWriteNotes, WriteNote } from './shared-write-notes';

const dialect = new PgDialect();

/**
 * A store that answers the router's own statements from fields the test sets, and any other
 * statement with `answer` (or throws `failure`). Only the routing and the lag arithmetic are
 * under test here; test/e2e/read-replicas.e2e-spec.ts runs them on a real streaming replica.
 */
class FakeStore {
  flushLsn = '0/1000';
  replayLsn: string | null = '0/1000';
  standby = true;
  /** Positions replayed one a look: each look at the replay position first replays the next one. */
  replaysAtLooks: string[] = [];
  failure: Error | undefined;
  statements: string[] = [];

  constructor(readonly answer: string) {}

  get database(): Database {
    const execute = (query: SQL) => {
      const text = dialect.sqlToQuery(query).sql;
      this.statements.push(text);
      if (this.failure) return Promise.reject(this.failure);
      if (text.includes('pg_current_wal_flush_lsn')) return Promise.resolve({ rows: [{ lsn: this.flushLsn }] });
      if (text.includes('pg_is_in_recovery')) return Promise.resolve({ rows: [{ lsn: this.replayLsn, standby: this.standby }] });
      if (text.includes('pg_last_wal_replay_lsn')) {
        this.replayLsn = this.replaysAtLooks.shift() ?? this.replayLsn;
        return Promise.resolve({ rows: [{ lsn: this.replayLsn }] });
      }
      return Promise.resolve({ rows: [{ from: this.answer }] });
    };
    return { kind: 'postgres', db: { execute } as unknown as Db, migrate: jest.fn(), ping: jest.fn(), close: jest.fn() };
  }
}

const QUESTION = sql`SELECT 'a question'`;
const SCOPE = { tenantId: 't1', graphId: 1 };

describe('ReadReplicas: lag against the primary', () => {
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('counts an idle primary as no lag, however long it stays idle', async () => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
    await replicas.check();
    jest.advanceTimersByTime(60_000);
    await replicas.check();
    expect(replicas.states()).toEqual([{ name: 'r1', status: 'up', lagMs: 0 }]);
  });

  it('dates the lag from when the primary wrote what the replica has not replayed, and skips it past the bound', async () => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
    await replicas.check();
    primary.flushLsn = '0/2000'; // written now; the replica stays at 0/1000
    await replicas.check();
    jest.advanceTimersByTime(600);
    await replicas.check();
    expect(replicas.states()[0]).toMatchObject({ status: 'up', lagMs: 600 });
    jest.advanceTimersByTime(500);
    await replicas.check();
    expect(replicas.states()[0]).toMatchObject({ status: 'lagging', lagMs: 1_100 });
    expect(replicas.usable()).toEqual([]);
    replica.replayLsn = '0/2000';
    await replicas.check();
    expect(replicas.states()[0]).toMatchObject({ status: 'up', lagMs: 0 });
  });

  it('marks down a replica that fails its check, or that is no standby', async () => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
    replica.failure = new Error('connect ECONNREFUSED 127.0.0.1:5433');
    await replicas.check();
    expect(replicas.states()).toEqual([{ name: 'r1', status: 'down', lagMs: null, reason: 'connect ECONNREFUSED 127.0.0.1:5433' }]);
    replica.failure = undefined;
    replica.standby = false;
    await replicas.check();
    expect(replicas.states()[0]).toMatchObject({ status: 'down', reason: 'not a standby of the primary' });
  });
});

describe('ReadRouter', () => {
  const setUp = async (maxWaitMs = 0) => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
    await replicas.check();
    return { primary, replica, replicas, router: new ReadRouter(primary.database, replicas, maxWaitMs) };
  };

  it('reads the primary without replicas (the embedded default and no DATABASE_READ_URL)', async () => {
    const primary = new FakeStore('primary');
    const router = new ReadRouter(primary.database);
    expect(router.routes).toBe(false);
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    await router.noteWrite(SCOPE); // nothing to note, no statement
    expect(primary.statements).toHaveLength(1);
  });

  it('reads a replica that is up, and the primary once it is down', async () => {
    const { router, replica, replicas } = await setUp();
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'replica' }]);
    replica.failure = new Error('Connection terminated unexpectedly');
    await replicas.check();
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(router.counts).toMatchObject({ replica: 1, primary: 1, fallback: 0 });
  });

  it('runs a statement that failed on the replica as a store fault again on the primary, and stops using that replica', async () => {
    const { router, replica } = await setUp();
    replica.failure = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(router.counts.fallback).toBe(1);
    expect(router.states()[0].status).toBe('down');
  });

  it('does not retry a statement that is wrong on any server', async () => {
    const { router, replica, primary } = await setUp();
    replica.failure = Object.assign(new Error('syntax error at or near "x"'), { code: '42601' });
    await expect(router.rows(QUESTION, SCOPE)).rejects.toThrow('syntax error');
    expect(primary.statements.filter((s) => s.includes('a question'))).toEqual([]);
    expect(router.states()[0].status).toBe('up');
  });

  it("waits for the replica to replay a graph's noted write, and reads the primary past the wait", async () => {
    // A wait long enough for any load on the machine: the replica replays at its second look.
    const patient = await setUp(10_000);
    patient.primary.flushLsn = '0/3000';
    await patient.router.noteWrite(SCOPE);
    patient.replica.replaysAtLooks = ['0/1000', '0/3000'];
    expect(await patient.router.rows(QUESTION, SCOPE)).toEqual([{ from: 'replica' }]);
    expect(patient.router.counts).toMatchObject({ waited: 1, waitedOut: 0 });

    const { router, primary } = await setUp(50);
    primary.flushLsn = '0/4000';
    await router.noteWrite(SCOPE);
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(router.counts).toMatchObject({ waited: 1, waitedOut: 1 });
    // The question's next statement does not wait again; another graph is not held back.
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(await router.rows(QUESTION, { tenantId: 't1', graphId: 2 })).toEqual([{ from: 'replica' }]);
    expect(router.counts.waited).toBe(1);
  });

  it("keeps a tenant's, every tenant's and a graph's notes apart", async () => {
    const { router, primary } = await setUp(0);
    primary.flushLsn = '0/3000';
    await router.noteWrite({ tenantId: 't1' }); // a usage report or an export about to read
    expect(await router.rows(QUESTION, { tenantId: 't1' })).toEqual([{ from: 'primary' }]);
    expect(await router.rows(QUESTION, { tenantId: null })).toEqual([{ from: 'replica' }]);
    expect(await router.rows(QUESTION, { tenantId: 't2' })).toEqual([{ from: 'replica' }]);
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'replica' }]);
    await router.noteWrite({ tenantId: null });
    expect(await router.rows(QUESTION, { tenantId: null })).toEqual([{ from: 'primary' }]);
  });

  it("notes another process's write only while a replica in the bound may not have replayed it", async () => {
    const { router, primary } = await setUp(0);
    primary.flushLsn = '0/3000';
    const before = primary.statements.length;
    await router.noteWrite(SCOPE, new Date(Date.now() - 10 * 60_000)); // processed ten minutes ago
    expect(primary.statements).toHaveLength(before);
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'replica' }]);
    await router.noteWrite(SCOPE, new Date(Date.now() - 500));
    expect(await router.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
  });

  it('runs a built statement on the replica, and on the primary when the replica fails it', async () => {
    const { router, replica } = await setUp();
    const statement = jest.fn((db: Db) => queryRows(db, QUESTION));
    expect(await router.read(SCOPE, statement)).toEqual([{ from: 'replica' }]);
    replica.failure = Object.assign(new Error('canceling statement due to conflict with recovery'), { code: '40001' });
    expect(await router.read(SCOPE, statement)).toEqual([{ from: 'primary' }]);
    expect(statement).toHaveBeenCalledTimes(3);
    expect(router.counts).toMatchObject({ replica: 1, fallback: 1 });
  });
});

/** Shared notes as the limit store keeps them (libs/quota; its contract suite runs them on Redis), counting the lookups. */
class FakeSharedNotes implements SharedWriteNotes {
  readonly kind = 'memory' as const;
  readonly notes = new Map<string, bigint>();
  lookUps = 0;
  failure: Error | undefined;

  async raise(note: WriteNote): Promise<void> {
    if (this.failure) throw this.failure;
    const key = `${note.tenantId}:${note.graphId}`;
    if ((this.notes.get(key) ?? -1n) < note.lsn) this.notes.set(key, note.lsn);
  }

  async lookUp(tenantId: string, graphId: number): Promise<bigint | null> {
    this.lookUps++;
    if (this.failure) throw this.failure;
    return this.notes.get(`${tenantId}:${graphId}`) ?? null;
  }
}

describe('ReadRouter: notes shared between processes', () => {
  /** Two API instances: each its own router and replica state, one primary, one replica server, one shared store. */
  const setUp = async (maxWaitMs = 0) => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const shared = new FakeSharedNotes();
    const instance = async () => {
      const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
      await replicas.check();
      return new ReadRouter(primary.database, replicas, maxWaitMs, shared);
    };
    return { primary, replica, shared, one: await instance(), two: await instance() };
  };

  it("holds a read on one instance to a graph's write noted on another, and no other graph or tenant", async () => {
    const { primary, shared, one, two } = await setUp(0);
    primary.flushLsn = '0/3000';
    await one.noteWrite(SCOPE);
    expect(shared.notes.get('t1:1')).toBe(0x3000n);
    expect(await two.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(await two.rows(QUESTION, { tenantId: 't1', graphId: 2 })).toEqual([{ from: 'replica' }]);
    expect(await two.rows(QUESTION, { tenantId: 't2', graphId: 1 })).toEqual([{ from: 'replica' }]);
    // A tenant's own note (a usage report, an export) is read back where it was made: not shared.
    await one.noteWrite({ tenantId: 't1' });
    expect([...shared.notes.keys()]).toEqual(['t1:1']);
  });

  it("waits on the other instance for the replica to replay the write, and reads it there once it has", async () => {
    const { primary, replica, one, two } = await setUp(10_000);
    primary.flushLsn = '0/3000';
    await one.noteWrite(SCOPE);
    replica.replaysAtLooks = ['0/1000', '0/3000'];
    expect(await two.rows(QUESTION, SCOPE)).toEqual([{ from: 'replica' }]);
    expect(two.counts).toMatchObject({ waited: 1, waitedOut: 0, primary: 0 });
  });

  it('looks the shared note up once a request, however many statements it runs', async () => {
    const { primary, shared, one, two } = await setUp(0);
    primary.flushLsn = '0/3000';
    await one.noteWrite(SCOPE);
    await runAsTenant('t1', async () => {
      await Promise.all([two.rows(QUESTION, SCOPE), two.rows(QUESTION, SCOPE)]);
      await two.rows(QUESTION, SCOPE);
    });
    expect(shared.lookUps).toBe(1);
    expect(two.counts.primary).toBe(3);
    // Another request asks again.
    await runAsTenant('t1', () => two.rows(QUESTION, SCOPE));
    expect(shared.lookUps).toBe(2);
  });

  it("a request's statements run side by side share one wait for the replica", async () => {
    const { primary, one, two } = await setUp(50);
    primary.flushLsn = '0/3000';
    await one.noteWrite(SCOPE);
    const answers = await runAsTenant('t1', () => Promise.all([two.rows(QUESTION, SCOPE), two.rows(QUESTION, SCOPE), two.rows(QUESTION, SCOPE)]));
    expect(answers.flat()).toEqual([{ from: 'primary' }, { from: 'primary' }, { from: 'primary' }]);
    expect(two.counts).toMatchObject({ waited: 1, waitedOut: 1, primary: 3 });
  });

  it('asks nothing without a usable replica, or without replicas', async () => {
    const primary = new FakeStore('primary');
    const replica = new FakeStore('replica');
    const shared = new FakeSharedNotes();
    replica.failure = new Error('connect ECONNREFUSED 127.0.0.1:5433');
    const replicas = new ReadReplicas(primary.database, [{ name: 'r1', database: replica.database }], 1_000);
    await replicas.check();
    const down = new ReadRouter(primary.database, replicas, 0, shared);
    expect(await down.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    const alone = new ReadRouter(primary.database, undefined, 0, shared);
    await alone.noteWrite(SCOPE);
    expect(await alone.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(shared.lookUps).toBe(0);
    expect(shared.notes.size).toBe(0);
  });

  it("reads a graph on the primary while the shared notes do not answer; other scopes' reads stay on the replica", async () => {
    const { shared, two } = await setUp(0);
    shared.failure = new Error('Connection is closed.');
    expect(await two.rows(QUESTION, SCOPE)).toEqual([{ from: 'primary' }]);
    expect(await two.rows(QUESTION, { tenantId: 't1' })).toEqual([{ from: 'replica' }]);
    expect(two.counts).toMatchObject({ notesUnreachable: 1, primary: 1, replica: 1 });
    // Not asked again at once: the next read of a graph goes to the primary without a round trip.
    const asked = shared.lookUps;
    expect(await two.rows(QUESTION, { tenantId: 't2', graphId: 5 })).toEqual([{ from: 'primary' }]);
    expect(shared.lookUps).toBe(asked);
  });

  it('a write whose note cannot be shared waits for the replica to replay it before it answers', async () => {
    const { primary, replica, shared, one } = await setUp(10_000);
    shared.failure = new Error('Connection is closed.');
    primary.flushLsn = '0/3000';
    replica.replaysAtLooks = ['0/1000', '0/2000', '0/3000'];
    await one.noteWrite(SCOPE);
    expect(one.counts.notesUnshared).toBe(1);
    expect(replica.replayLsn).toBe('0/3000');
  });
});
