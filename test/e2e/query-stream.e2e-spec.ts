import { InferencesRepository, SpendLedgerRepository } from '@loci/db';
import { costMicros, PriceTable } from '@loci/llm';
import { LIMIT_STORE, LimitStore, limitKeys, utcDay, utcMonth } from '@loci/quota';
import {
  createApiKey,
  createLimitedTenant,
  LlmDouble,
  llmDoubleEnv,
  ReadEvent,
  serverSentEvents,
  startLlmDouble,
} from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

const DAY_MS = 86_400_000;
const QUESTION = { query: 'Where does Alice work?', hl_keywords: ['work'], ll_keywords: ['Alice'] };
const ANSWER_TEXT = 'Alice works at Acme [1], as the staff list says.';

/** A real HTTP client of the listening app: fetch, so it can read events as they come and hang up. */
function post(baseUrl: string, token: string, body: object, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}/v1/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
}

async function allEvents(response: Response): Promise<ReadEvent[]> {
  const events: ReadEvent[] = [];
  for await (const event of serverSentEvents(response)) events.push(event);
  return events;
}

async function listening(t: TestApp): Promise<string> {
  await t.app.listen(0, '127.0.0.1');
  return (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean | Promise<boolean>, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * The streamed answer of each provider: its real SDK streaming from the double in that
 * provider's SSE wire format, through POST /v1/query with "stream": true.
 */
const PROVIDERS = [
  {
    model: 'anthropic:claude-haiku-4-5',
    endpoint: (d: LlmDouble) => d.anthropic,
    reply: { text: ANSWER_TEXT, usage: { input_tokens: 900, output_tokens: 30 } },
    // message_start, ping, content_block_start, two text deltas
    stallAfterTwoPieces: 5,
  },
  {
    model: 'openai:gpt-4.1-mini',
    endpoint: (d: LlmDouble) => d.openai.chat,
    reply: { text: ANSWER_TEXT, usage: { prompt_tokens: 900, completion_tokens: 30, total_tokens: 930 } },
    // the role chunk, two content chunks
    stallAfterTwoPieces: 3,
  },
] as const;

describe.each(PROVIDERS)('POST /v1/query streamed by $model', (provider) => {
  let double: LlmDouble;
  let t: TestApp;
  let baseUrl: string;
  let store: LimitStore;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_EXTRACT_MODEL: 'local:local-nlp-v1',
      LOCI_SUMMARIZE_MODEL: 'local:local-nlp-v1',
      LOCI_ANSWER_MODEL: provider.model,
      LOCI_QUERY_MIN_SIMILARITY: '-1',
    });
    store = t.app.get(LIMIT_STORE);
    baseUrl = await listening(t);
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => {
    double.reset();
    provider.endpoint(double).reply(provider.reply);
  });

  async function answerRows(tenantId: string) {
    const rows = await t.app.get(InferencesRepository).listByTenantSince(tenantId, new Date(Date.now() - 3_600_000));
    return { all: rows, answers: rows.filter((r) => r.stage === 'answer') };
  }

  /** The tenant's spend by the ledger (the truth) and by the limit store's counters (its cache). */
  async function spendOf(tenantId: string) {
    const now = await store.now();
    const dayFrom = Math.floor(now / DAY_MS) * DAY_MS;
    const d = new Date(now);
    const ledger = await t.app.get(SpendLedgerRepository).tenantSpend(
      tenantId,
      { from: new Date(dayFrom), to: new Date(dayFrom + DAY_MS) },
      { from: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)), to: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) },
    );
    return {
      ledgerDay: ledger.dayMicros,
      counterDay: await store.committed(limitKeys.tenantSpendDay(tenantId, utcDay(now))),
      counterMonth: await store.committed(limitKeys.tenantSpendMonth(tenantId, utcMonth(now))),
    };
  }

  it('sends the sources first, then the answer as the model writes it, then the metadata; spend settles to the streamed usage', async () => {
    const { tenant, member } = await createLimitedTenant(t.app, { dailyCostCapMicros: 10_000_000 });
    const response = await post(baseUrl, member.token, { ...QUESTION, include_sources: true, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await allEvents(response);

    const names = events.map((e) => e.event);
    expect(names[0]).toBe('sources');
    expect(names.at(-1)).toBe('metadata');
    expect(names.slice(1, -1).every((name) => name === 'answer')).toBe(true);
    // Several pieces, as the SDK received them: the answer was streamed, not sent whole.
    expect(names.filter((name) => name === 'answer').length).toBeGreaterThan(3);
    expect(events[0].data.sources).toEqual([expect.objectContaining({ reference_id: '1', document_name: 'd', chunk_id: expect.any(String) })]);
    expect(events.filter((e) => e.event === 'answer').map((e) => e.data.text).join('')).toBe(ANSWER_TEXT);
    expect(events.at(-1)!.data).toEqual({
      metadata: {
        mode: 'mix',
        model: provider.model,
        tokens_in: 900,
        tokens_out: 30,
        latency_ms: expect.any(Number),
        unresolved_sources_count: 0,
        no_answer_reason: null,
      },
      cited: ['1'],
    });

    const [sent] = provider.endpoint(double).requests;
    expect(sent.body.stream).toBe(true);
    // The ledger row and the counters hold the streamed usage's price, to the micro-dollar.
    const { answers, all } = await answerRows(tenant.id);
    const price = PriceTable.load().priceOf(provider.model)!;
    const expected = costMicros(price, { inputTokens: 900, outputTokens: 30, thinkingTokens: 0 });
    expect(answers.map((r) => [r.status, r.tokensIn, r.tokensOut, r.costMicros])).toEqual([['ok', 900, 30, expected]]);
    const spend = await spendOf(tenant.id);
    const settled = all.reduce((sum, r) => sum + r.costMicros, 0);
    expect(spend).toEqual({ ledgerDay: settled, counterDay: settled, counterMonth: settled });
  });

  it('a client that disconnects mid-stream stops the model call, frees its slot and settles its reservation to what had arrived', async () => {
    const { tenant, member } = await createLimitedTenant(t.app, { maxConcurrentQueries: 1 });
    provider.endpoint(double).queue({ ...provider.reply, stallAfterEvents: provider.stallAfterTwoPieces });
    const hangUp = new AbortController();
    const response = await post(baseUrl, member.token, { ...QUESTION, stream: true }, hangUp.signal);
    const seen: string[] = [];
    try {
      for await (const event of serverSentEvents(response)) {
        seen.push(event.event);
        if (event.event === 'answer') break; // the answer has begun: hang up
      }
    } finally {
      hangUp.abort();
    }
    expect(seen).toEqual(['sources', 'answer']);

    // The double sees its streaming connection closed by the SDK: the model call was stopped.
    const [call] = provider.endpoint(double).requests;
    await call.ended;
    expect(call.clientClosed).toBe(true);

    // The slot is free (long before its lease), so the next question is not refused for concurrency.
    await until(async () => (await answerRows(tenant.id)).answers.every((r) => r.status !== 'pending'), 10_000, 'the aborted call to settle');
    const next = await allEvents(await post(baseUrl, member.token, { ...QUESTION, stream: true }));
    expect(next.at(-1)!.event).toBe('metadata');

    const { answers, all } = await answerRows(tenant.id);
    const [aborted, answered] = answers;
    expect(aborted).toMatchObject({ status: 'error', error: expect.stringMatching(/went away/) });
    // Billed for what it had generated (input, and the pieces that arrived), far below its worst case.
    expect(aborted.costMicros).toBeGreaterThan(0);
    expect(aborted.costMicros).toBeLessThan(aborted.estimatedCostMicros);
    expect(answered.status).toBe('ok');
    const spend = await spendOf(tenant.id);
    const settled = all.reduce((sum, r) => sum + r.costMicros, 0);
    expect(spend).toEqual({ ledgerDay: settled, counterDay: settled, counterMonth: settled });
  });

  it('reports a failure after the events began as an error event in the v1 detail shape', async () => {
    const { member } = await createLimitedTenant(t.app, {});
    provider.endpoint(double).queue({ ...provider.reply, truncated: true });
    const events = await allEvents(await post(baseUrl, member.token, { ...QUESTION, stream: true }));
    expect(events[0].event).toBe('sources');
    expect(events.at(-1)).toEqual({ event: 'error', data: { status: 502, detail: expect.stringMatching(/cut/), failure: 'truncated' } });
    expect(events.some((e) => e.event === 'metadata')).toBe(false);
  });

  it('answers a failure before any event with its ordinary status and body', async () => {
    const { member } = await createLimitedTenant(t.app, { dailyQueryQuota: 0 });
    const refused = await post(baseUrl, member.token, { ...QUESTION, stream: true });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: { error: 'daily_query_quota_exceeded', limit: 0, retry_after: expect.any(Number) } });

    const invalid = await post(baseUrl, member.token, { ...QUESTION, stream: 'yes' });
    expect(invalid.status).toBe(422);
    expect(await invalid.json()).toEqual({ detail: [{ loc: ['body', 'stream'], msg: 'Input should be a valid boolean', type: expect.any(String) }] });
  });

  it('streams an API-key question too, with no model call: the retrieved material, as without stream', async () => {
    const { tenant } = await createLimitedTenant(t.app, {});
    const key = await createApiKey(t.app, tenant.id);
    const events = await allEvents(await post(baseUrl, key.key, { query: 'Where does Alice work?', context_only: true, stream: true }));
    expect(events.map((e) => e.event)).toEqual(['sources', 'context', 'metadata']);
    expect(events[1].data.context.chunks[0].text).toMatch(/Alice works at Acme/);
    expect(events[2].data.metadata.model).toBe('context-mode-no-llm');

    const legacy = await allEvents(await post(baseUrl, key.key, { query: 'Where does Alice work?', stream: true }));
    expect(legacy.map((e) => e.event)).toEqual(['sources', 'answer', 'metadata']);
    expect(legacy[1].data.text).toMatch(/^This is retrieved material, not an answer/);
    expect(double.anthropic.requests.length + double.openai.chat.requests.length).toBe(0);
  });
});

describe('POST /v1/query streamed by the offline answerer (the embedded default)', () => {
  let t: TestApp;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startTestApp({});
    baseUrl = await listening(t);
  });
  afterAll(() => t.close());

  it('streams its answer in pieces, after the sources, with the same text as without stream', async () => {
    const { member } = await createLimitedTenant(t.app, {});
    const body = { query: 'Where does Alice work?', include_sources: true };
    const whole = (await (await post(baseUrl, member.token, body)).json()) as { answer: string; metadata: { model: string } };
    const events = await allEvents(await post(baseUrl, member.token, { ...body, stream: true }));

    expect(events[0].event).toBe('sources');
    expect(events.at(-1)!.event).toBe('metadata');
    const pieces = events.filter((e) => e.event === 'answer').map((e) => e.data.text);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(whole.answer);
    expect(whole.answer).toMatch(/Alice works at Acme/);
    expect(events.at(-1)!.data.metadata.model).toBe(whole.metadata.model);
  });
});
