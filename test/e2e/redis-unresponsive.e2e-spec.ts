import type { ChildProcess } from 'node:child_process';
import { createTenantWithPeople, freePort, hasRedisServer, killRedis, startRedis } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A Redis that stops answering without closing its connections (here a private redis-server
 * paused with SIGSTOP; a swapping server or a partition that drops packets looks the same):
 * each command fails after LOCI_REDIS_COMMAND_TIMEOUT_MS, so a spending request answers 503
 * limits_unavailable instead of waiting on it, and requests that spend nothing keep working.
 * Once Redis answers again, so does Loci.
 */
(hasRedisServer() ? describe : describe.skip)('an unresponsive Redis (private redis-server, paused)', () => {
  let redis: ChildProcess;
  let t: TestApp;
  let people: Awaited<ReturnType<typeof createTenantWithPeople>>;

  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    t = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      LOCI_REDIS_COMMAND_TIMEOUT_MS: '300',
      ANTHROPIC_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
    });
    people = await createTenantWithPeople(t.app);
  });
  afterAll(async () => {
    if (redis) {
      redis.kill('SIGCONT');
      await killRedis(redis);
    }
    await t?.close();
  });

  const dashboardQuestion = () =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${people.member.token}`).send({ query: 'Where does Alice work?' });
  const contextQuestion = () =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${people.apiKey.key}`).send({ query: 'Where does Alice work?', context_only: true });

  it('answers a spending request with 503 limits_unavailable while Redis is paused, and serves again once it resumes', async () => {
    expect((await dashboardQuestion()).status).toBe(200);

    redis.kill('SIGSTOP');
    try {
      const refused = await dashboardQuestion();
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 503, body: { detail: { error: 'limits_unavailable' } } });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await contextQuestion()).status).toBe(200);
    } finally {
      redis.kill('SIGCONT');
    }

    expect((await dashboardQuestion()).status).toBe(200);
  });
});
