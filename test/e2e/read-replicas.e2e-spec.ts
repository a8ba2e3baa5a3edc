import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { ReadRouter } from '@loci/db';
import { IngestWorker } from '@loci/ingest';
import { createTenantWithPeople, parsePrometheusText, sampleValue } from '@loci/testing';
import { Client } from 'pg';
import { readyzReplica, REPLICA_SKIP_REASON, replicaOf, replicaUrl, until } from '../support/replica';
import { startTestApp, TestApp } from '../support/test-app';

type Tenant = Awaited<ReturnType<typeof createTenantWithPeople>>;

const title = replicaUrl
  ? 'question reads on a streaming replica (LOCI_TEST_REPLICA_URL)'
  : `question reads on a streaming replica: ${REPLICA_SKIP_REASON}`;
const METRICS_TOKEN = 'replica-metrics-token-0123456789';
const REPLICA_SCRIPT = join(__dirname, '../../.ci/replica.sh');

/**
 * DATABASE_READ_URL on a real streaming replica of the test server (pg_basebackup -R): the
 * questions' statements run on the replica, a query right after remember sees the remembered
 * text (waiting for replay, else the primary), a replica that lags or stops is skipped, and no
 * request fails meanwhile. Replay is paused and resumed on the replica itself. Usage reports,
 * exports and reads after another process's ingestion: read-replicas-reports.e2e-spec.ts.
 */
(replicaUrl ? describe : describe.skip)(title, () => {
  let t: TestApp;
  let a: Tenant;

  // Replay is the replica server's: paused and resumed through any of its databases.
  const pauseReplay = () => replicaOf(t).pauseReplay();
  const resumeReplay = () => replicaOf(t).resumeReplay();
  const onReplica = <T>(text: string) => replicaOf(t).query<T>(text);

  const remember = (app: TestApp, tenant: Tenant, userId: string, text: string) =>
    app.http.post('/v1/gb/remember').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ user_id: userId, text }).expect(200);
  const ask = (app: TestApp, tenant: Tenant, userId: string, query: string) =>
    app.http.post('/v1/gb/query').set('Authorization', `Bearer ${tenant.apiKey.key}`).send({ user_id: userId, query });

  beforeAll(async () => {
    t = await startTestApp(
      { LOCI_REPLICA_MAX_LAG_MS: '60000', LOCI_REPLICA_MAX_WAIT_MS: '3000', LOCI_METRICS_TOKEN: METRICS_TOKEN },
      { replicaUrls: [replicaUrl!] },
    );
    a = await createTenantWithPeople(t.app);
    await replicaOf(t).becomes('up');
  });
  afterAll(async () => {
    await resumeReplay().catch(() => undefined);
    await t?.close();
  });

  it('runs the questions on the replica: its pg_stat_activity shows them, the primary serves none', async () => {
    await remember(t, a, 'on-replica', 'Alice Johnson works at Acme Corporation.');
    const reads = t.app.get(ReadRouter);
    const before = { ...reads.counts };
    for (let i = 0; i < 3; i++) expect((await ask(t, a, 'on-replica', 'Where does Alice Johnson work?').expect(200)).body.answer).toContain('Acme');
    expect(reads.counts.replica).toBeGreaterThan(before.replica);
    expect(reads.counts.primary).toBe(before.primary);
    // The pool's sessions on the replica, their last statement one of retrieval's (every one is
    // about a tenant; the router's own checks are not).
    const sessions = await onReplica<{ query: string }>(
      `SELECT query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%tenant_id%'`,
    );
    expect(sessions.length).toBeGreaterThan(0);

    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.details.replicas).toEqual({
      status: 'up',
      serving: 1,
      replicas: [{ name: expect.stringMatching(/^127\.0\.0\.1:\d+\/loci_test_/), status: 'up', lag_ms: expect.any(Number) }],
    });
    const samples = parsePrometheusText((await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200)).text);
    expect(sampleValue(samples, 'loci_db_replica_up', { status: 'up' })).toBe(1);
    expect(sampleValue(samples, 'loci_db_reads_total', { route: 'replica' })).toBeGreaterThan(0);
    expect(samples.some((s) => s.name === 'loci_db_replica_lag_seconds')).toBe(true);
  });

  it('browses the graph on the replica (entities by name, an entity with its facts), right after the worker processed a document', async () => {
    const reads = t.app.get(ReadRouter);
    await pauseReplay();
    try {
      await t.http.post('/v1/documents').set('X-API-Key', a.apiKey.key).send({ name: 'acme.txt', text: 'Greta Holm works at Acme Corporation.' }).expect(202);
      // The worker of this process notes its graph's position when the document is processed.
      await t.app.get(IngestWorker).drain();
      const before = { ...reads.counts };
      const resume = new Promise((resolve) => setTimeout(resolve, 300)).then(resumeReplay);
      const found = await t.http.get('/v1/entities?q=greta').set('Authorization', `Bearer ${a.member.token}`).expect(200);
      await resume;
      const greta = (found.body.items as Array<{ entity_id: string; name: string }>).find((e) => e.name === 'Greta Holm')!;
      const entity = await t.http.get(`/v1/entities/${greta.entity_id}`).set('Authorization', `Bearer ${a.member.token}`).expect(200);
      expect(JSON.stringify(entity.body)).toContain('Acme');
      expect(reads.counts.waited).toBeGreaterThan(before.waited);
      expect(reads.counts.waitedOut).toBe(before.waitedOut);
      expect(reads.counts.replica).toBeGreaterThanOrEqual(before.replica + 2);
      expect(reads.counts.primary).toBe(before.primary);
    } finally {
      await resumeReplay();
    }
  });

  it("a query right after remember waits for the replica to replay the client's write", async () => {
    const reads = t.app.get(ReadRouter);
    await pauseReplay();
    try {
      await remember(t, a, 'ryw-wait', 'Bruno Keller works at Zorblatt Industries.');
      const before = { ...reads.counts };
      // Replay resumes while the question waits (LOCI_REPLICA_MAX_WAIT_MS is 3 s here).
      const resume = new Promise((resolve) => setTimeout(resolve, 300)).then(resumeReplay);
      const response = await ask(t, a, 'ryw-wait', 'Where does Bruno Keller work?').expect(200);
      await resume;
      expect(response.body.answer).toContain('Zorblatt');
      expect(reads.counts.waited).toBeGreaterThan(before.waited);
      expect(reads.counts.waitedOut).toBe(before.waitedOut);
      expect(reads.counts.primary).toBe(before.primary);
    } finally {
      await resumeReplay();
    }
  });

  it("another session's open transaction neither holds a read to its wait nor makes the replica look behind", async () => {
    const reads = t.app.get(ReadRouter);
    // WAL written and not committed (another tenant's ingestion, mid-transaction): no commit has
    // flushed it, so the replica cannot receive it until one does. A note taken now must not ask
    // the replica for it, and the replica lacking it is not lag.
    const open = new Client({ connectionString: t.settings.database.url! });
    await open.connect();
    try {
      await open.query('BEGIN');
      await open.query("SELECT pg_logical_emit_message(true, 'loci-test', 'an open transaction')");
      const scope = { tenantId: a.tenant.id };
      await reads.noteWrite(scope);
      const before = { ...reads.counts };
      await reads.read(scope, (db) => db.execute(sql`SELECT 1`));
      expect(reads.counts.waitedOut).toBe(before.waitedOut);
      expect(reads.counts.replica).toBe(before.replica + 1);
      await new Promise((resolve) => setTimeout(resolve, 1_500)); // six lag checks
      const state = await readyzReplica(t);
      expect(state.status).toBe('up');
      expect(state.lag_ms).toBeLessThan(1_000);
    } finally {
      await open.query('ROLLBACK').catch(() => undefined);
      await open.end();
    }
  });

  it('a replica stopped mid-traffic fails no request; it serves again once restarted', async () => {
    await remember(t, a, 'stop', 'Frida Nilsen works at Gryphon Mills.');
    const reads = t.app.get(ReadRouter);
    const statuses: number[] = [];
    let stop = false;
    const traffic = Array.from({ length: 4 }, async () => {
      while (!stop) statuses.push((await ask(t, a, 'stop', 'Where does Frida Nilsen work?')).status);
    });
    try {
      await until(async () => statuses.length >= 8, 'eight answers');
      const before = { ...reads.counts };
      execFileSync('bash', [REPLICA_SCRIPT, 'stop'], { stdio: 'pipe' });
      await replicaOf(t).becomes('down');
      const atStop = statuses.length;
      await until(async () => statuses.length >= atStop + 8, 'eight answers with the replica down');
      expect(reads.counts.primary + reads.counts.fallback).toBeGreaterThan(before.primary + before.fallback);
    } finally {
      stop = true;
      await Promise.all(traffic);
      execFileSync('bash', [REPLICA_SCRIPT], { stdio: 'pipe' });
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    await replicaOf(t).becomes('up', 60_000);
    const before = { ...reads.counts };
    await ask(t, a, 'stop', 'Where does Frida Nilsen work?').expect(200);
    expect(reads.counts.replica).toBeGreaterThan(before.replica);
  }, 120_000);

  // The apps below are built after `t`, with other settings: passport keeps one API-key strategy
  // per process, the last app's, so `t` is not asked anything after them.
  it('past LOCI_REPLICA_MAX_WAIT_MS the query reads the primary and still sees the write', async () => {
    const quick = await startTestApp({ LOCI_REPLICA_MAX_LAG_MS: '60000', LOCI_REPLICA_MAX_WAIT_MS: '150' }, { replicaUrls: [replicaUrl!] });
    try {
      const b = await createTenantWithPeople(quick.app);
      await replicaOf(quick).becomes('up');
      const reads = quick.app.get(ReadRouter);
      await pauseReplay();
      try {
        await remember(quick, b, 'ryw-out', 'Carla Moreno works at Quibble Labs.');
        const before = { ...reads.counts };
        const response = await ask(quick, b, 'ryw-out', 'Where does Carla Moreno work?').expect(200);
        expect(response.body.answer).toContain('Quibble');
        expect(reads.counts.waitedOut).toBeGreaterThan(before.waitedOut);
        expect(reads.counts.primary).toBeGreaterThan(before.primary);
      } finally {
        await resumeReplay();
      }
    } finally {
      await quick.close();
    }
  });

  it('skips a replica that lags past LOCI_REPLICA_MAX_LAG_MS, and uses it again once it catches up', async () => {
    const strict = await startTestApp({ LOCI_REPLICA_MAX_LAG_MS: '300' }, { replicaUrls: [replicaUrl!] });
    try {
      const b = await createTenantWithPeople(strict.app);
      await remember(strict, b, 'lag', 'Dora Lindqvist works at Umbral Shipping.');
      await replicaOf(strict).becomes('up');
      const reads = strict.app.get(ReadRouter);
      await pauseReplay();
      try {
        // A write on the primary the paused replica does not replay: its lag grows past 300 ms.
        await strict.http.post('/v1/gb/remember').set('Authorization', `Bearer ${b.apiKey.key}`).send({ user_id: 'other', text: 'Egon works at Frobco.' }).expect(200);
        await replicaOf(strict).becomes('lagging');
        const before = { ...reads.counts };
        expect((await ask(strict, b, 'lag', 'Where does Dora Lindqvist work?').expect(200)).body.answer).toContain('Umbral');
        expect(reads.counts.replica).toBe(before.replica);
        expect(reads.counts.primary).toBeGreaterThan(before.primary);
        expect((await strict.http.get('/readyz').expect(200)).body.details.replicas.serving).toBe(0);
      } finally {
        await resumeReplay();
      }
      await replicaOf(strict).becomes('up');
      const before = { ...reads.counts };
      await ask(strict, b, 'lag', 'Where does Dora Lindqvist work?').expect(200);
      expect(reads.counts.replica).toBeGreaterThan(before.replica);
    } finally {
      await strict.close();
    }
  });
});
