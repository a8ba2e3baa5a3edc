import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFreshPostgresDatabase,
  LlmDouble,
  llmDoubleEnv,
  OtlpReceiver,
  ReceivedSpan,
  startLlmDouble,
  startOtlpReceiver,
} from '@loci/testing';
import { BUILT_API, BuiltApi, startBuiltApi } from '../support/built-api';

/**
 * Traces, on the built server as `npm start` runs it (instrumentations patch modules as they are
 * required, which only the real entry point does in the real order). A loopback OTLP receiver
 * stands in for the collector; the LLM double for the providers. On whichever store the run has:
 * PostgreSQL + Redis (DATABASE_URL, REDIS_URL) or the embedded default.
 */

const postgres = process.env.DATABASE_URL;
const redis = process.env.REDIS_URL;
const OPERATOR = { email: 'op@traces.test', password: 'operator-password-1' };

/** Preloaded into the API: on exit, writes which OpenTelemetry modules were loaded and whether a global tracer provider was registered. */
const PROBE = `
const { writeFileSync } = require('node:fs');
process.on('exit', () => {
  const api = globalThis[Symbol.for('opentelemetry.js.api.1')];
  writeFileSync(process.env.LOCI_TEST_PROBE_OUT, JSON.stringify({
    modules: Object.keys(require.cache).filter((path) => path.includes('@opentelemetry') || path.includes('/libs/tracing/')),
    tracerProvider: Boolean(api && api.trace),
  }));
});
`;

interface Probe {
  modules: string[];
  tracerProvider: boolean;
}

const traceparentOf = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

async function json(response: Response): Promise<any> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return JSON.parse(text);
}

describe('traces (e2e, built server)', () => {
  let dir: string;
  let probeFile: string;
  let double: LlmDouble;
  let receiver: OtlpReceiver;
  let dropDatabase: (() => Promise<void>) | undefined;
  let storeEnv: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'loci-traces-'));
    probeFile = join(dir, 'probe.js');
    writeFileSync(probeFile, PROBE);
    double = await startLlmDouble();
    receiver = await startOtlpReceiver();
    if (postgres) {
      const database = await createFreshPostgresDatabase(postgres);
      dropDatabase = database.drop;
      // The data dir holds the generated secrets the API and the worker share.
      storeEnv = { DATABASE_URL: database.url, LOCI_DATA_DIR: join(dir, 'data'), ...(redis ? { REDIS_URL: redis } : {}) };
    } else {
      storeEnv = { LOCI_DATA_DIR: join(dir, 'data') };
    }
  });
  afterAll(async () => {
    await double?.close();
    await receiver?.close();
    await dropDatabase?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string>, probeOut: string): Promise<BuiltApi> =>
    startBuiltApi(
      {
        ...storeEnv,
        ...llmDoubleEnv(double),
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        LOCI_LLM_MAX_RETRIES: '0',
        LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
        LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
        // The double's embeddings are pseudo-random, so no match would clear a similarity floor.
        LOCI_QUERY_MIN_SIMILARITY: '-1',
        LOCI_BOOTSTRAP_OPERATOR_EMAIL: OPERATOR.email,
        LOCI_BOOTSTRAP_OPERATOR_PASSWORD: OPERATOR.password,
        LOCI_TEST_PROBE_OUT: probeOut,
        ...env,
      },
      120_000,
      ['--require', probeFile],
    );

  /**
   * A tenant with an admin signed in and one document processed (by the API's in-process worker),
   * made through the API: its spans are in traces of their own.
   */
  async function signedInAdminWithDocument(api: BuiltApi): Promise<string> {
    const post = (path: string, body: object, token?: string) =>
      fetch(`${api.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }).then(json);
    const operator = (await post('/v1/auth/login', OPERATOR)).access_token;
    const tenant = await post('/v1/admin/tenants', { name: `traces-${randomBytes(3).toString('hex')}`, tier: 'pro', billing: 'platform' }, operator);
    const admin = { email: `admin-${randomBytes(3).toString('hex')}@traces.test`, password: 'admin-password-1' };
    await post(`/v1/admin/tenants/${tenant.id}/users`, { ...admin, role: 'admin' }, operator);
    const token = (await post('/v1/auth/login', admin)).access_token;
    const { document_id } = await post('/v1/documents', { name: 'staff.txt', text: 'Alice Johnson works at Acme Corporation in Berlin.' }, token);
    for (const deadline = Date.now() + 60_000; ; ) {
      const shown = await fetch(`${api.baseUrl}/v1/documents/${document_id}`, { headers: { authorization: `Bearer ${token}` } }).then(json);
      if (shown.status === 'processed') return token;
      if (shown.status === 'failed' || Date.now() > deadline) throw new Error(`document ${shown.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const ask = (api: BuiltApi, token: string, traceparent: string) =>
    fetch(`${api.baseUrl}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, traceparent },
      body: JSON.stringify({ query: 'Where does Alice work?' }),
    });

  it('continues the caller\'s trace through HTTP, SQL, Redis and the model call, and sends it on to the provider', async () => {
    const probeOut = join(dir, 'on.json');
    const api = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-key' }, probeOut);
    const callerTrace = randomBytes(16).toString('hex');
    const callerSpan = randomBytes(8).toString('hex');
    let status: number;
    try {
      const token = await signedInAdminWithDocument(api);
      double.reset();
      double.anthropic.reply((body) =>
        JSON.stringify(body).includes('high_level')
          ? { text: '{"high_level":["employment"],"low_level":["Alice"]}', usage: { input_tokens: 321, output_tokens: 17 } }
          : { text: '{"answer":"Alice works at Acme [1].","cited":["1"]}', usage: { input_tokens: 400, output_tokens: 9 } },
      );
      const response = await ask(api, token, traceparentOf(callerTrace, callerSpan));
      status = response.status;
      await response.text();
    } finally {
      // Stopping flushes the batch exporter: every span of the request is exported by exit.
      await api.stop();
    }
    const spans = receiver.spans.filter((span) => span.traceId === callerTrace);
    expect(status).toBe(200);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const ancestors = (span: ReceivedSpan): ReceivedSpan[] => {
      const chain: ReceivedSpan[] = [];
      for (let parent = span.parentSpanId && byId.get(span.parentSpanId); parent; parent = parent.parentSpanId && byId.get(parent.parentSpanId)) chain.push(parent);
      return chain;
    };

    // The HTTP server span continues the caller's trace, as the child of the caller's span.
    const server = spans.filter((span) => span.kind === 2 && span.scope === '@opentelemetry/instrumentation-http');
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ parentSpanId: callerSpan, service: 'loci-api' });
    expect(server[0].attributes).toMatchObject({ 'http.route': '/v1/query' });
    const underServer = (span: ReceivedSpan) => ancestors(span).includes(server[0]);

    // SQL: node-postgres' spans on PostgreSQL, Loci's own on the embedded store; all in the request's trace.
    const sql = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.every(underServer)).toBe(true);
    expect(new Set(sql.map((span) => span.scope))).toEqual(new Set([postgres ? '@opentelemetry/instrumentation-pg' : 'loci']));
    expect(sql.map((span) => span.attributes['db.query.text'])).toContainEqual(expect.stringMatching(/^select /i));
    expect(sql.some((span) => 'db.query.parameter.0' in span.attributes || 'db.statement.values' in span.attributes)).toBe(false);

    // Redis (the question's quota, concurrency slot and spend reservation), command names only.
    const redisSpans = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-ioredis');
    if (redis && postgres) {
      expect(redisSpans.length).toBeGreaterThan(0);
      expect(redisSpans.every(underServer)).toBe(true);
      for (const span of redisSpans) expect(span.attributes['db.query.text']).toMatch(/^[a-z]+$/i);
    } else {
      expect(redisSpans).toEqual([]);
    }

    // The model calls: one span each, with provider, model, stage and tokens; never the prompt.
    const keywords = spans.filter((span) => span.scope === 'loci' && span.attributes['loci.stage'] === 'keywords');
    expect(keywords).toHaveLength(1);
    expect(underServer(keywords[0])).toBe(true);
    expect(keywords[0]).toMatchObject({ name: 'chat claude-haiku-4-5', kind: 3 });
    expect(keywords[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-haiku-4-5',
      'gen_ai.usage.input_tokens': 321,
      'gen_ai.usage.output_tokens': 17,
      'loci.billing': 'platform',
      'loci.status': 'ok',
    });
    expect(JSON.stringify(spans)).not.toContain('Alice');

    // The provider's request carries the trace on: its parent is the fetch span, under the SDK's
    // own span (which records no prompt either), under the gateway's.
    const keywordsRequest = double.anthropic.requests.find((request) => JSON.stringify(request.body).includes('high_level'));
    const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(keywordsRequest?.headers.traceparent));
    expect(sent?.[1]).toBe(callerTrace);
    const outgoing = byId.get(sent![2]);
    expect(outgoing).toMatchObject({ kind: 3, scope: '@opentelemetry/instrumentation-undici' });
    expect(ancestors(outgoing!).map((span) => span.scope)).toEqual([
      'com.anthropic.sdk.typescript',
      'loci',
      expect.any(String), // the route's handler, then the server span
      '@opentelemetry/instrumentation-http',
    ]);
    expect(ancestors(outgoing!)[1]).toBe(keywords[0]);

    // Every export carried the configured headers.
    expect(receiver.exports.length).toBeGreaterThan(0);
    expect(receiver.exports.every((headers) => headers.authorization === 'Bearer collector-key')).toBe(true);

    // The request's log line names its trace, so a log search leads to the trace and back.
    const logLines = api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { req?: { url?: string }; trace_id?: string });
    expect(logLines.find((line) => line.req?.url === '/v1/query')).toMatchObject({ trace_id: callerTrace });

    const probe = JSON.parse(readFileSync(probeOut, 'utf8')) as Probe;
    expect(probe.tracerProvider).toBe(true);
    expect(probe.modules).toContainEqual(expect.stringContaining('/node_modules/@opentelemetry/sdk-trace-node/'));
  }, 300_000);

  // Two processes on one store: PostgreSQL only (the embedded store has one owner).
  (postgres ? it : it.skip)('traces the worker process\'s jobs, each a trace of its own with its statements and model calls', async () => {
    const exportsBefore = receiver.spans.length;
    const worker = spawn(process.execPath, [join(BUILT_API, '../../../worker/src/main.js')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, ...storeEnv, ...llmDoubleEnv(double), LOCI_EXTRACT_MODEL: 'local:local-nlp-v1', LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint },
    });
    let output = '';
    worker.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    worker.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    const api = await start({ LOCI_RUN_WORKER: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, join(dir, 'worker-api.json'));
    try {
      double.reset();
      await signedInAdminWithDocument(api);
    } finally {
      await api.stop();
      worker.kill('SIGTERM');
    }
    expect({ code: await exited, output: output.includes('failed') ? output : '' }).toEqual({ code: 0, output: '' });

    const fromWorker = receiver.spans.slice(exportsBefore).filter((span) => span.service === 'loci-worker');
    const jobs = fromWorker.filter((span) => span.name === 'job ingest_document');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ parentSpanId: undefined, kind: 5, attributes: expect.objectContaining({ 'loci.job.kind': 'ingest_document' }) });
    const inJob = fromWorker.filter((span) => span.traceId === jobs[0].traceId);
    expect(inJob.filter((span) => span.scope === '@opentelemetry/instrumentation-pg').length).toBeGreaterThan(0);
    expect(inJob.find((span) => span.attributes['loci.stage'] === 'embed')).toMatchObject({
      name: 'embeddings text-embedding-3-small',
      attributes: expect.objectContaining({ 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': expect.any(Number) }),
    });
    // The worker's queue polls are no trace: every span of the worker is in a job's trace.
    expect(fromWorker.every((span) => span.traceId === jobs[0].traceId)).toBe(true);
  }, 300_000);

  it('loads and registers nothing of OpenTelemetry with no collector named, and sends no traceparent on', async () => {
    const probeOut = join(dir, 'off.json');
    const exportsBefore = receiver.exports.length;
    const api = await start({}, probeOut);
    try {
      const token = await signedInAdminWithDocument(api);
      double.reset();
      double.anthropic.reply((body) => ({ text: JSON.stringify(body).includes('high_level') ? '{"high_level":[],"low_level":["Alice"]}' : '{"answer":"Acme.","cited":[]}' }));
      const response = await ask(api, token, traceparentOf(randomBytes(16).toString('hex'), randomBytes(8).toString('hex')));
      expect(response.status).toBe(200);
      await response.text();
    } finally {
      await api.stop();
    }
    const probe = JSON.parse(readFileSync(probeOut, 'utf8')) as Probe;
    // The Anthropic SDK and prom-client require the no-op API package themselves; nothing of the
    // SDK, the exporter, an instrumentation or libs/tracing is loaded, and no provider registered.
    expect(probe.modules.filter((path) => !path.includes('/node_modules/@opentelemetry/api/'))).toEqual([]);
    expect(probe.tracerProvider).toBe(false);
    expect(double.anthropic.requests.length).toBeGreaterThan(0);
    expect(double.anthropic.requests.every((request) => request.headers.traceparent === undefined)).toBe(true);
    expect(receiver.exports.length).toBe(exportsBefore);
  }, 300_000);
});
