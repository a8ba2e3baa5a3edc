import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LIMIT_STORE, LimitStore, limitKeys, utcDay, utcMonth } from '@loci/quota';
import {
  createApiKey,
  createLimitedTenant,
  createUser,
  HealthProbe,
  LlmDouble,
  llmDoubleEnv,
  parsePrometheusText,
  ReadEvent,
  sampleValue,
  serverSentEvents,
  startHealthProbe,
  startLlmDouble,
} from '@loci/testing';
import { startTestApp, TestApp } from '../../support/test-app';

/**
 * Issue 33.7: a refusal is counted wherever it is delivered. A cost-cap refusal that meets a
 * streamed question after its events began goes out as an SSE `error` event of an HTTP 200
 * stream, and one met by an MCP tool goes out as a tool result: neither passes the HTTP error
 * path, where refusals used to be counted only. Each delivery here is one refusal in
 * `/v1/usage` and one in `loci_limit_refusals_total`, exactly.
 */
const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const QUESTION = { query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] };
/**
 * Room for the question's embedding but not for the answer's worst case (its model's output
 * limit at its price): admitted, then refused when the answer reserves, after the sources went out.
 */
const TINY_CAP_MICROS = 200;

describe('refusals are counted on every surface that delivers them', () => {
  let double: LlmDouble;
  let t: TestApp;
  let baseUrl: string;
  let probe: HealthProbe;
  let mcp: Client;
  let cast: Awaited<ReturnType<typeof createLimitedTenant>>;
  let admin: Awaited<ReturnType<typeof createUser>>;
  let metricsBefore: number;
  /** What each surface delivered, as the caller saw it. */
  const delivered = { sse: 0, http: 0, mcp: 0 };

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_METRICS_TOKEN: METRICS_TOKEN,
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    cast = await createLimitedTenant(t.app, { dailyCostCapMicros: TINY_CAP_MICROS });
    admin = await createUser(t.app, cast.tenant.id, 'admin');
    const key = await createApiKey(t.app, cast.tenant.id);
    mcp = new Client({ name: 'refusals-test-agent', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { 'X-API-Key': key.key } } }));
    metricsBefore = refusalsMetric(await scrape());
    probe = startHealthProbe(baseUrl);
  });
  afterAll(async () => {
    await mcp?.close();
    await t?.close();
    await double?.close();
  });
  beforeEach(() => {
    double.reset();
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["1"]}', usage: { input_tokens: 1000, output_tokens: 100 } });
  });

  async function scrape() {
    const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(200);
    return parsePrometheusText(await response.text());
  }
  const refusalsMetric = (samples: ReturnType<typeof parsePrometheusText>) => sampleValue(samples, 'loci_limit_refusals_total', { kind: 'cost_cap_exceeded' });

  async function streamedQuestion(): Promise<{ status: number; events: ReadEvent[] }> {
    const response = await fetch(`${baseUrl}/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cast.member.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...QUESTION, include_sources: true, stream: true }),
    });
    const events: ReadEvent[] = [];
    for await (const event of serverSentEvents(response)) events.push(event);
    return { status: response.status, events };
  }

  it('refuses streamed questions mid-stream with an SSE error event (HTTP 200)', async () => {
    for (let i = 0; i < 3; i++) {
      const { status, events } = await streamedQuestion();
      expect(status).toBe(200);
      expect(events.map((e) => e.event)).toEqual(['sources', 'error']);
      expect(events[1].data).toEqual({ status: 402, detail: expect.objectContaining({ error: 'cost_cap_exceeded' }) });
      delivered.sse += 1;
    }
    // The model was never called: the refusal came at the answer's reservation.
    expect(double.anthropic.requests).toHaveLength(0);
  });

  it('refuses over HTTP and as MCP tool results once the cap is spent', async () => {
    await spendTheCap();
    const refused = await fetch(`${baseUrl}/v1/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cast.member.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(QUESTION),
    });
    expect(refused.status).toBe(402);
    expect(((await refused.json()) as { detail: { error: string } }).detail.error).toBe('cost_cap_exceeded');
    delivered.http += 1;

    for (const call of [
      { name: 'remember', arguments: { user_id: 'u1', text: 'Alice works at Acme.' } },
      { name: 'remember', arguments: { user_id: 'u2', text: 'Bob works at Globex.' } },
      { name: 'query', arguments: { user_id: 'u1', query: 'Where does Alice work?' } },
    ]) {
      const result = (await mcp.callTool(call)) as { content: Array<{ text: string }>; isError?: boolean };
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^402: cost_cap_exceeded/) }] });
      delivered.mcp += 1;
    }
  });

  it('counts exactly the refusals delivered, in /v1/usage and in loci_limit_refusals_total', async () => {
    const total = delivered.sse + delivered.http + delivered.mcp;
    expect(delivered).toEqual({ sse: 3, http: 1, mcp: 3 });
    const usage = await fetch(`${baseUrl}/v1/usage`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { items: unknown[] }).items).toEqual([expect.objectContaining({ tenant_id: cast.tenant.id, refusals: { cost_cap_exceeded: total } })]);
    expect(refusalsMetric(await scrape()) - metricsBefore).toBe(total);
  });

  it('kept /healthz answering within a second all along', async () => {
    const report = await probe.stop();
    expect(report.probes).toBeGreaterThan(0);
    expect(report.failed).toEqual([]);
    expect(report.slow).toEqual([]);
  });

  /** Settles the whole cap in the tenant's counters, as spend-control's tests seed spend. */
  async function spendTheCap(): Promise<void> {
    const store = t.app.get<LimitStore>(LIMIT_STORE);
    const now = await store.now();
    const keys = [
      { key: limitKeys.tenantSpendDay(cast.tenant.id, utcDay(now)), capMicros: null, ttlMs: 86_400_000 },
      { key: limitKeys.tenantSpendMonth(cast.tenant.id, utcMonth(now)), capMicros: null, ttlMs: 86_400_000 * 31 },
    ];
    const id = `seed-${randomUUID()}`;
    await store.reserve(id, keys, TINY_CAP_MICROS, 60_000);
    await store.settle(id, keys, TINY_CAP_MICROS);
  }
});
