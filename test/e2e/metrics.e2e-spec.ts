import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DocumentsService, IngestWorker, JobQueue } from '@loci/ingest';
import {
  createApiKey,
  createLimitedTenant,
  createTenant,
  LlmDouble,
  llmDoubleEnv,
  parsePrometheusText,
  Sample,
  sampleValue,
  startLlmDouble,
} from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * GET /metrics: off without LOCI_METRICS_TOKEN, a bearer of it only when set; a request, a
 * model call, a refusal and ingestion each move their series (scraped and parsed); the queue
 * and health gauges are read at scrape time; no label ever carries an id.
 */

const TOKEN = 'metrics-token-for-tests-0123456789';

describe('GET /metrics when LOCI_METRICS_TOKEN is unset', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('does not exist (404 in the common error shape), with or without a token', async () => {
    for (const auth of [undefined, `Bearer ${TOKEN}`]) {
      const request = t.http.get('/metrics');
      const response = await (auth ? request.set('Authorization', auth) : request).expect(404);
      expect(response.body).toMatchObject({ error: { code: 'not_found', message: expect.stringContaining('LOCI_METRICS_TOKEN') } });
    }
  });
});

describe('GET /metrics with LOCI_METRICS_TOKEN', () => {
  let double: LlmDouble;
  let t: TestApp;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_METRICS_TOKEN: TOKEN,
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });

  async function scrape(): Promise<Sample[]> {
    const response = await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return parsePrometheusText(response.text);
  }

  it('refuses a scrape without the token, with another one, or with it in another scheme', async () => {
    for (const auth of [undefined, 'Bearer not-the-metrics-token-at-all', `Basic ${TOKEN}`, TOKEN, `Bearer ${TOKEN}x`]) {
      const request = t.http.get('/metrics');
      const response = await (auth ? request.set('Authorization', auth) : request).expect(401);
      expect(response.body).toMatchObject({ error: { code: 'unauthenticated' } });
      expect(response.text).not.toContain('loci_');
    }
    // A user's session is no scrape token either.
    const { member } = await createLimitedTenant(t.app, {});
    await t.http.get('/metrics').set('Authorization', `Bearer ${member.token}`).expect(401);
  });

  it('times a request under its route pattern and status, and bounds the labels whatever the URLs', async () => {
    const tenant = await createTenant(t.app);
    const { key } = await createApiKey(t.app, tenant.id);
    const series = (samples: Sample[]) => samples.filter((s) => s.name === 'loci_http_request_duration_seconds_count');
    const route = { method: 'GET', route: '/v1/documents/:documentId', status: '404' };
    const before = await scrape();

    const ids = Array.from({ length: 15 }, () => String(100_000 + Math.floor(Math.random() * 1e9)));
    for (const id of ids) await t.http.get(`/v1/documents/${id}`).set('X-API-Key', key).expect(404);
    const junk = Array.from({ length: 15 }, () => randomUUID());
    for (const path of junk) await t.http.get(`/no-such-route/${path}`).expect(404);

    const after = await scrape();
    expect(sampleValue(after, 'loci_http_request_duration_seconds_count', route) - sampleValue(before, 'loci_http_request_duration_seconds_count', route)).toBe(15);
    const unmatched = { method: 'GET', route: 'unmatched', status: '404' };
    expect(sampleValue(after, 'loci_http_request_duration_seconds_count', unmatched) - sampleValue(before, 'loci_http_request_duration_seconds_count', unmatched)).toBe(15);
    // Thirty distinct URLs, at most two new series (this route's 404 and "unmatched"), plus the
    // scrape itself.
    expect(series(after).length - series(before).length).toBeLessThanOrEqual(3);
    const text = after.map((s) => JSON.stringify(s.labels)).join('\n');
    for (const value of [...ids, ...junk, tenant.id]) expect(text).not.toContain(value);
  });

  it('counts a model call by provider, model, stage and billing, with its tokens and cost', async () => {
    const { member } = await createLimitedTenant(t.app, {});
    const labels = { provider: 'anthropic', stage: 'answer', billing: 'platform' };
    const before = await scrape();
    await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${member.token}`)
      .send({ query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] })
      .expect(200);
    expect(double.anthropic.requests).toHaveLength(1);
    const after = await scrape();
    const delta = (name: string, extra: Record<string, string> = {}) => sampleValue(after, name, { ...labels, ...extra }) - sampleValue(before, name, { ...labels, ...extra });
    expect(delta('loci_model_calls_total', { status: 'ok' })).toBe(1);
    expect(delta('loci_model_tokens_total', { direction: 'input' })).toBe(1000);
    expect(delta('loci_model_tokens_total', { direction: 'output' })).toBe(100);
    expect(delta('loci_model_cost_microdollars_total')).toBeGreaterThan(0);
    expect(Number.isInteger(delta('loci_model_cost_microdollars_total'))).toBe(true);
    const answerCall = after.find((s) => s.name === 'loci_model_calls_total' && s.labels.stage === 'answer' && s.labels.provider === 'anthropic');
    expect(answerCall?.labels.model).toEqual(expect.any(String));
    // The question's embedding is a model call too.
    expect(sampleValue(after, 'loci_model_calls_total', { stage: 'embed', status: 'ok' }) - sampleValue(before, 'loci_model_calls_total', { stage: 'embed', status: 'ok' })).toBeGreaterThan(0);
  });

  it('counts a refusal by its kind', async () => {
    const { member } = await createLimitedTenant(t.app, { dailyQueryQuota: 0 });
    const kind = { kind: 'daily_query_quota_exceeded' };
    const before = sampleValue(await scrape(), 'loci_limit_refusals_total', kind);
    const refused = await t.http
      .post('/v1/query')
      .set('Authorization', `Bearer ${member.token}`)
      .send({ query: 'Where does Alice work?' })
      .expect(429);
    expect(refused.body.detail.error).toBe(kind.kind);
    expect(sampleValue(await scrape(), 'loci_limit_refusals_total', kind) - before).toBe(1);
    expect(double.anthropic.requests).toHaveLength(0);
  });

  it('reads the ingestion backlog at scrape time', async () => {
    // A kind no runner of this app consumes, so the jobs wait as long as the test needs.
    const tenant = await createTenant(t.app);
    const queue = t.app.get(JobQueue);
    const kind = 'metrics_test_job';
    const before = await scrape();
    await queue.enqueue(tenant.id, kind, {}, { runAt: new Date(Date.now() - 120_000) });
    await queue.enqueue(tenant.id, kind, {});
    await queue.enqueue(tenant.id, kind, {}, { runAt: new Date(Date.now() + 3_600_000) });
    const waiting = await scrape();
    const delta = (state: string) => sampleValue(waiting, 'loci_ingest_queue_jobs', { state }) - sampleValue(before, 'loci_ingest_queue_jobs', { state });
    expect(delta('ready')).toBe(2);
    expect(delta('scheduled')).toBe(1);
    expect(sampleValue(waiting, 'loci_ingest_queue_oldest_ready_seconds')).toBeGreaterThanOrEqual(120);

    const claimed = await queue.claim('metrics-test', [kind], 60_000);
    const running = await scrape();
    expect(sampleValue(running, 'loci_ingest_queue_jobs', { state: 'running' }) - sampleValue(before, 'loci_ingest_queue_jobs', { state: 'running' })).toBe(1);
    expect(sampleValue(running, 'loci_ingest_queue_jobs', { state: 'ready' }) - sampleValue(before, 'loci_ingest_queue_jobs', { state: 'ready' })).toBe(1);
    await queue.complete(claimed!);
    await queue.complete((await queue.claim('metrics-test', [kind], 60_000))!);
    expect(sampleValue(await scrape(), 'loci_ingest_queue_oldest_ready_seconds')).toBe(0);
  });

  it('counts the chunks ingestion wrote in this process', async () => {
    const tenant = await createTenant(t.app);
    const before = sampleValue(await scrape(), 'loci_ingest_chunks_total', { kind: 'document' });
    await t.app.get(DocumentsService).submit(tenant.id, { name: 'one', mimeType: 'text/plain', text: 'Alice works at Acme. Bob works at Globex.' });
    await t.app.get(DocumentsService).submit(tenant.id, { name: 'two', mimeType: 'text/plain', text: 'Carol lives in Paris.' });
    await t.app.get(IngestWorker).drain();
    expect(sampleValue(await scrape(), 'loci_ingest_chunks_total', { kind: 'document' }) - before).toBe(2);
  });

  it('reports the store and the limit store up, and the database pool on PostgreSQL', async () => {
    const samples = await scrape();
    const driver = process.env.DATABASE_URL ? 'postgres' : 'pglite';
    expect(sampleValue(samples, 'loci_store_up', { driver })).toBe(1);
    expect(sampleValue(samples, 'loci_limit_store_up', { driver: process.env.REDIS_URL ? 'redis' : 'memory' })).toBe(1);
    const pool = samples.filter((s) => s.name === 'loci_db_pool_connections');
    if (driver === 'postgres') {
      expect(sampleValue(samples, 'loci_db_pool_connections', { state: 'max' })).toBe(t.settings.database.poolMax);
      expect(sampleValue(samples, 'loci_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
    } else {
      expect(pool).toEqual([]);
    }
    // The process's own series come with it.
    expect(samples.some((s) => s.name === 'process_cpu_user_seconds_total')).toBe(true);
  });

  it('serves every series the Grafana dashboard in docs/ draws', async () => {
    const dashboard = readFileSync(join(__dirname, '../../docs/grafana-dashboard.json'), 'utf8');
    const drawn = new Set([...dashboard.matchAll(/\b(loci_[a-z_]+|nodejs_[a-z0-9_]+)/g)].map(([name]) => name.replace(/_(bucket|count|sum)$/, '')));
    const text = (await t.http.get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
    const served = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map(([, name]) => name));
    expect([...drawn].filter((name) => !served.has(name))).toEqual([]);
  });

  it('uses only bounded label names: no tenant, user, key, document or dataset ids', async () => {
    const allowed = new Set(['method', 'route', 'status', 'provider', 'model', 'stage', 'billing', 'direction', 'kind', 'state', 'driver', 'le']);
    const names = new Set((await scrape()).filter((s) => s.name.startsWith('loci_')).flatMap((s) => Object.keys(s.labels)));
    expect([...names].filter((name) => !allowed.has(name))).toEqual([]);
  });
});
