import { createLimitedTenant, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const clusterNodes = process.env.REDIS_CLUSTER_NODES || undefined;
const title = clusterNodes
  ? 'the API on a Redis Cluster (REDIS_CLUSTER_NODES)'
  : 'the API on a Redis Cluster: SKIPPED, set REDIS_CLUSTER_NODES (.ci/redis-cluster.sh starts one on 127.0.0.1:7001-7003; .ci/run does)';

/**
 * Spend control through HTTP with its limits on a three-master Redis Cluster: readiness, the
 * daily quota and concurrency checked in one admission script, per tenant. The limit store's
 * own contract suite runs on the same cluster (test/contract/limit-store.contract-spec.ts).
 */
(clusterNodes ? describe : describe.skip)(title, () => {
  let double: LlmDouble;
  let t: TestApp;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: clusterNodes,
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
  });
  afterAll(async () => {
    await t?.close();
    await double?.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });

  const ask = (token: string) =>
    t.http.post('/v1/query').set('Authorization', `Bearer ${token}`).send({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] });

  it('is ready with its limits on the cluster', async () => {
    const ready = await t.http.get('/readyz').expect(200);
    expect(ready.body.details.limits).toEqual({ status: 'up', driver: 'redis' });
  });

  it("counts each tenant's daily quota on the cluster, and one tenant's refusals leave another's questions alone", async () => {
    const a = await createLimitedTenant(t.app, { dailyQueryQuota: 1, maxConcurrentQueries: 1 });
    const b = await createLimitedTenant(t.app, { dailyQueryQuota: 1, maxConcurrentQueries: 1 });
    await ask(a.member.token).expect(200);
    const refused = await ask(a.member.token).expect(429);
    expect(refused.body).toEqual({ detail: { error: 'daily_query_quota_exceeded', limit: 1, retry_after: expect.any(Number) } });
    await ask(b.member.token).expect(200);
    await ask(b.member.token).expect(429);
  });
});
