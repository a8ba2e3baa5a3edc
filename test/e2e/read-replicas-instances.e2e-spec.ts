import type { ChildProcess } from 'node:child_process';
import type { INestApplication } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import request from 'supertest';
import { createApp } from '../../apps/api/src/create-app';
import { Database, DATABASE, queryRows, ReadRouter } from '@loci/db';
import { limitKeys } from '@loci/quota';
import { createTenantWithPeople, freePort, hasRedisServer, killRedis, startRedis } from '@loci/testing';
import { keysMatching } from '../contract/redis-target';
import { REPLICA_SKIP_REASON, replicaOf, replicaUrl, until } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

const ready = Boolean(replicaUrl) && hasRedisServer();
const title = ready
  ? 'read-your-writes across two API instances on a streaming replica (LOCI_TEST_REPLICA_URL, a private Redis)'
  : `read-your-writes across two API instances on a streaming replica: ${replicaUrl ? 'SKIPPED, no redis-server on the PATH' : REPLICA_SKIP_REASON}`;

/**
 * Two API instances on one database, one Redis (a private redis-server this file may kill) and a
 * real streaming replica, as behind a load balancer: a gb `remember` on the first and a `query` on
 * the second. The first shares the graph's write note through the limit store; the second finds
 * it and reads a replica that has replayed the write, waiting for it, or the primary past the
 * wait. Replay is paused on the replica, so only such a read can see the newest write; the second
 * instance's router counts say which it was. Another tenant's reads are not held by the note; with
 * Redis gone, the second instance reads graphs on the primary.
 */
(ready ? describe : describe.skip)(title, () => {
  let redis: ChildProcess;
  let redisUrl: string;
  let one: TestApp;
  let two: TestApp;
  let a: Tenant;
  let b: Tenant;

  const replica = () => replicaOf(one);
  const countsOf = (app: TestApp) => ({ ...app.app.get(ReadRouter).counts });
  const remember = (app: TestApp, tenant: Tenant, userId: string, text: string) =>
    app.http.post('/v1/gb/remember').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ user_id: userId, text }).expect(200);
  const ask = (app: TestApp, tenant: Tenant, userId: string, query: string) =>
    app.http.post('/v1/gb/query').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ user_id: userId, query }).expect(200);
  /** Resumes replay `ms` into `read` (and in any case after it). */
  async function resumedDuring<T>(read: () => Promise<T>, ms = 300): Promise<T> {
    try {
      const resume = new Promise((resolve) => setTimeout(resolve, ms)).then(() => replica().resumeReplay());
      const result = await read();
      await resume;
      return result;
    } finally {
      await replica().resumeReplay();
    }
  }
  /** Until the replica has replayed everything the primary had flushed (every commit) when asked. */
  async function replicaCaughtUp(): Promise<void> {
    const [{ lsn }] = await queryRows<{ lsn: string }>(one.app.get<Database>(DATABASE).db, sql`SELECT pg_current_wal_flush_lsn()::text AS lsn`);
    await until(
      async () => (await replica().query<{ done: boolean }>(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`))[0].done,
      `replayed to ${lsn}`,
    );
  }

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    redisUrl = `redis://127.0.0.1:${port}`;
    one = await startTestApp(
      { REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: undefined, LOCI_REPLICA_MAX_LAG_MS: '60000', LOCI_REPLICA_MAX_WAIT_MS: '3000' },
      { replicaUrls: [replicaUrl!] },
    );
    // The second instance: the same settings (database, replica, Redis), its own process state.
    const second: INestApplication = await createApp(one.settings);
    await second.init();
    two = { app: second, settings: one.settings, http: request(second.getHttpServer()), close: () => second.close() };
    [a, b] = await Promise.all([createTenantWithPeople(one.app), createTenantWithPeople(one.app)]);
    await Promise.all([replicaOf(one).becomes('up'), replicaOf(two).becomes('up')]);
    await remember(one, b, 'b1', 'Bertil Ahlgren works at Kvarn Logistics.');
    await replicaCaughtUp();
  });
  afterAll(async () => {
    await replica()
      .resumeReplay()
      .catch(() => undefined);
    await two?.close();
    await one?.close();
    if (redis) await killRedis(redis);
  });

  it('a query on the second instance right after a remember on the first waits for the replica to replay it', async () => {
    await replica().pauseReplay();
    await remember(one, a, 'cross', 'Bruno Keller works at Zorblatt Industries.');
    // The note is in Redis, under the tenant's hash tag, for the note's life (two lag bounds here: 120 s).
    const notes = (await keysMatching({ url: redisUrl }, limitKeys.tenantPattern(a.tenant.id))).filter(({ key }) => key.includes(':write-note:'));
    expect(notes).toEqual([{ key: expect.stringMatching(/:write-note:\d+$/), pttl: expect.any(Number) }]);
    expect(notes[0].pttl).toBeGreaterThan(60_000);
    expect(notes[0].pttl).toBeLessThanOrEqual(120_000);
    const before = countsOf(two);
    const response = await resumedDuring(() => ask(two, a, 'cross', 'Where does Bruno Keller work?'));
    expect(response.body.answer).toContain('Zorblatt');
    const after = countsOf(two);
    expect(after.waited).toBeGreaterThan(before.waited);
    expect(after.waitedOut).toBe(before.waitedOut);
    expect(after.primary).toBe(before.primary);
    expect(after.replica).toBeGreaterThan(before.replica);
  });

  it('past the wait, the second instance reads the remembered text on the primary', async () => {
    await replica().pauseReplay();
    try {
      await remember(one, a, 'cross', 'Bruno Keller moved to Quillon Harbour.');
      const before = countsOf(two);
      // Replay stays paused for longer than LOCI_REPLICA_MAX_WAIT_MS (3 s).
      const response = await ask(two, a, 'cross', 'Where does Bruno Keller live?');
      expect(JSON.stringify(response.body)).toContain('Quillon');
      const after = countsOf(two);
      expect(after.waitedOut).toBe(before.waitedOut + 1);
      expect(after.primary).toBeGreaterThan(before.primary);
      expect(after.replica).toBe(before.replica);
    } finally {
      await replica().resumeReplay();
    }
  });

  it("another tenant's reads on the second instance are not held by the first tenant's note", async () => {
    await replicaCaughtUp();
    // The second instance sees the replica past B's own note (its remember above) before replay pauses.
    await ask(two, b, 'b1', 'Where does Bertil Ahlgren work?');
    await replica().pauseReplay();
    try {
      await remember(one, a, 'cross', 'Bruno Keller joined the Vexa Choir.');
      const before = countsOf(two);
      const response = await ask(two, b, 'b1', 'Where does Bertil Ahlgren work?');
      expect(response.body.answer).toContain('Kvarn');
      const after = countsOf(two);
      expect(after.waited).toBe(before.waited);
      expect(after.primary).toBe(before.primary);
      expect(after.replica).toBeGreaterThan(before.replica);
    } finally {
      await replica().resumeReplay();
    }
  });

  it("with Redis gone, the second instance reads graphs on the primary (a note may be there, unseen); a tenant's report stays on the replica", async () => {
    await replicaCaughtUp();
    await killRedis(redis);
    const before = countsOf(two);
    const found = await two.http.get('/v1/entities?q=bruno').set('Authorization', `Bearer ${a.member.token}`).expect(200);
    expect(found.body.items).toEqual(expect.any(Array));
    const afterBrowse = countsOf(two);
    expect(afterBrowse.notesUnreachable).toBeGreaterThan(before.notesUnreachable);
    expect(afterBrowse.primary).toBeGreaterThan(before.primary);
    expect(afterBrowse.replica).toBe(before.replica);
    // A usage report notes and reads its own position in its own request: no shared note to miss.
    await two.http.get('/v1/usage').set('Authorization', `Bearer ${a.admin.token}`).expect(200);
    expect(countsOf(two).replica).toBeGreaterThan(afterBrowse.replica);
  });
});
