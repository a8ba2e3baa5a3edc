import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import {
  createApiKey,
  createLimitedTenant,
  freePort,
  hasRedisServer,
  HealthProbe,
  killRedis,
  startHealthProbe,
  startRedis,
} from '@loci/testing';
import { startTestApp, TestApp } from '../../support/test-app';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 33.6: a tenant's daily question quota survives Redis losing its data. Before, a quota
 * of 3 allowed 3 more questions the same day once Redis was killed and started empty (6
 * answered): the quota counter lived in Redis only. Now every counted question is on record in
 * PostgreSQL at admission and the day's counter is rebuilt from it when Redis lost it.
 *
 * A private redis-server the test kills (SIGKILL; it keeps nothing on disk) and starts again on
 * the same port, the app in-process on a real port, and /healthz probed every 200 ms the whole
 * time (it checks nothing but the process, so Redis being down does not fail it).
 */
(hasRedisServer() ? describe : describe.skip)('the daily question quota across a Redis that lost its data', () => {
  let t: TestApp;
  let redis: ChildProcess;
  let port: number;
  let probe: HealthProbe;

  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    // The local providers answer (a model-answered question counts against the quota).
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined });
    await t.app.listen(0, '127.0.0.1');
    probe = startHealthProbe(`http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await probe?.stop();
    await t?.close();
    if (redis) await killRedis(redis);
  });

  const question = { query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] };
  const quotaRefusal = { detail: { error: 'daily_query_quota_exceeded', limit: 3, retry_after: expect.any(Number) } };

  it('refuses the 4th question of the day on /v1/query and /v1/gb/query, before and after Redis restarts empty', async () => {
    // /v1/query: a dashboard member's questions (answered by the platform's model).
    const dashboard = await createLimitedTenant(t.app, { dailyQueryQuota: 3 });
    const ask = () => t.http.post('/v1/query').set('Authorization', `Bearer ${dashboard.member.token}`).send(question);
    // /v1/gb/query: an API key's questions of a user's memory, under the same kind of quota.
    const agent = await createLimitedTenant(t.app, { dailyQueryQuota: 3 });
    const key = await createApiKey(t.app, agent.tenant.id);
    await t.http.post('/v1/gb/remember').set('X-API-Key', key.key).send({ user_id: 'u1', text: 'Alice works at Acme.' }).expect(200);
    const gb = () => t.http.post('/v1/gb/query').set('X-API-Key', key.key).send({ user_id: 'u1', query: 'Where does Alice work?' });

    for (let i = 0; i < 3; i++) {
      const answered = await ask().expect(200);
      expect(answered.body.metadata.model).not.toBe('context-mode-no-llm'); // answered by a model: counted
      expect((await gb().expect(200)).body.answer).toEqual(expect.any(String));
    }
    const refused = await ask().expect(429);
    expect(refused.body).toEqual(quotaRefusal);
    expect(refused.headers['retry-after']).toBe(String(refused.body.detail.retry_after));
    expect((await gb().expect(429)).body).toMatchObject({ error: 'daily_query_quota_exceeded' });

    await killRedis(redis);
    expect((await ask()).status).toBe(503); // fails closed while it is down
    redis = await startRedis(port); // empty: no quota counters, no spend counters, no scripts

    let after = await ask();
    for (const deadline = Date.now() + 20_000; after.status === 503 && Date.now() < deadline; ) {
      await sleep(200);
      after = await ask();
    }
    expect(after.status).toBe(429);
    expect(after.body).toEqual(quotaRefusal);
    expect(Number(after.headers['retry-after'])).toBeGreaterThan(0);
    const gbAfter = await gb();
    expect(gbAfter.status).toBe(429);
    expect(gbAfter.body).toMatchObject({ error: 'daily_query_quota_exceeded' });
    // Asked again, still refused (the rebuilt counter is not re-seeded per question).
    await ask().expect(429);
    await gb().expect(429);
  });

  it('kept /healthz answering within 1 s the whole time', async () => {
    const report = await probe.stop();
    expect(report.probes).toBeGreaterThan(0);
    expect(report.failed).toEqual([]);
    expect(report.slow).toEqual([]);
  });
});
