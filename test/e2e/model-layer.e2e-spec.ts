import { InferencesRepository } from '@loci/db';
import {
  CallContext,
  costMicros,
  ModelCallError,
  ModelGateway,
  OwnKeysService,
  PriceTable,
  StageRunner,
  UnknownModelError,
} from '@loci/llm';
import { createTenant, LlmDouble, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * The model layer inside the real app: real SDKs against the loopback double, the real store
 * for the inference ledger.
 */
describe('model layer with providers configured', () => {
  let double: LlmDouble;
  let t: TestApp;
  let gateway: ModelGateway;
  let runner: StageRunner;
  let ledger: InferencesRepository;
  let prices: PriceTable;
  let tenantId: string;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ANTHROPIC_API_KEY: 'platform-anthropic-key',
      ANTHROPIC_BASE_URL: double.anthropicBaseUrl,
      OPENAI_API_KEY: 'platform-openai-key',
      OPENAI_BASE_URL: double.openaiBaseUrl,
      LOCI_LLM_MAX_RETRIES: '1',
    });
    gateway = t.app.get(ModelGateway);
    runner = t.app.get(StageRunner);
    ledger = t.app.get(InferencesRepository);
    prices = t.app.get(PriceTable);
    tenantId = (await createTenant(t.app)).id;
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  const context = (kind: 'query' | 'ingest' = 'query') => new CallContext(tenantId, `req-${randomUUID()}`, kind);
  const schema = z.object({ answer: z.string() });
  const call = { system: 'Reply in JSON.', messages: [{ role: 'user' as const, content: 'Where does Alice work?' }], maxOutputTokens: 200 };

  it('routes chat stages to Anthropic and embeddings to OpenAI by default', () => {
    expect(gateway.router.choose('answer').spec).toBe('anthropic:claude-haiku-4-5');
    expect(gateway.router.choose('embed').spec).toBe('openai:text-embedding-3-small');
  });

  it('writes one ledger row per call, priced to the micro-dollar', async () => {
    double.anthropic.reply({ text: '{"answer":"Acme"}', usage: { input_tokens: 1200, output_tokens: 80 } });
    const ctx = context();
    const { value } = await gateway.chatJson(ctx, 'answer', call, schema);
    expect(value).toEqual({ answer: 'Acme' });
    const rows = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(rows).toHaveLength(1);
    const price = prices.priceOf('anthropic:claude-haiku-4-5')!;
    expect(rows[0]).toMatchObject({
      callIndex: 0,
      kind: 'query',
      stage: 'answer',
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      reasoning: 'none',
      tokensIn: 1200,
      tokensOut: 80,
      costMicros: costMicros(price, { inputTokens: 1200, outputTokens: 80, thinkingTokens: 0 }),
      billedTo: 'platform',
      status: 'ok',
    });
    expect(rows[0].costMicros).toBe(1200 + 80 * 5);
    // The estimate covers the prompt and the whole output cap: what a cap reservation must hold.
    expect(rows[0].estimatedCostMicros).toBeGreaterThanOrEqual(call.maxOutputTokens * 5);
  });

  it('sends the thinking budget of the requested reasoning level', async () => {
    double.anthropic.reply({ text: '{"answer":"x"}' });
    await gateway.chatJson(context(), 'answer', { ...call, reasoning: 'medium' }, schema);
    expect(double.anthropic.requests[0].body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('repairs a reply that is not the JSON asked for, once', async () => {
    double.anthropic.queue({ text: 'Alice works at Acme.' }, { text: '{"answer":"Acme"}' });
    const ctx = context();
    const { value, completions } = await gateway.chatJson(ctx, 'answer', call, schema);
    expect(value.answer).toBe('Acme');
    expect(completions).toHaveLength(2);
    const repairMessages = double.anthropic.requests[1].body.messages;
    expect(repairMessages.at(-1).content).toMatch(/could not be used/);
    expect(await ledger.listByRequest(tenantId, ctx.requestId)).toHaveLength(2);
  });

  it('fails with bad_output when the repair is unusable too', async () => {
    double.anthropic.reply({ text: 'no JSON here' });
    const ctx = context();
    const error = await gateway.chatJson(ctx, 'answer', call, schema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ failure: 'bad_output', provider: 'anthropic', stage: 'answer' });
    expect((await ledger.listByRequest(tenantId, ctx.requestId)).map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('never uses a truncated answer, and still records what it cost', async () => {
    double.anthropic.reply({ text: '{"answer":"Alice works at', truncated: true, usage: { input_tokens: 100, output_tokens: 200 } });
    const ctx = context();
    const error = await gateway.chatJson(ctx, 'answer', call, schema).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'truncated' });
    const [row] = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(row).toMatchObject({ status: 'error', tokensOut: 200, costMicros: 100 + 200 * 5 });
  });

  it('records a failed call as an error row after the retries', async () => {
    double.anthropic.reply({ status: 500 });
    const ctx = context();
    const error = await gateway.chat(ctx, 'answer', call).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'unavailable', status: 500 });
    expect(double.anthropic.requests).toHaveLength(2); // one retry (LOCI_LLM_MAX_RETRIES=1)
    const [row] = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(row).toMatchObject({ status: 'error', costMicros: 0 });
  });

  it('keeps a pending row, with its worst-case cost, while a call is in flight', async () => {
    double.anthropic.reply({ text: '{"answer":"late"}', delayMs: 400 });
    const ctx = context();
    const inFlight = gateway.chatJson(ctx, 'answer', call, schema);
    while (double.anthropic.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const [pending] = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(pending.status).toBe('pending');
    expect(pending.estimatedCostMicros).toBeGreaterThan(200 * 5); // at least the output cap
    await inFlight;
    expect((await ledger.listByRequest(tenantId, ctx.requestId))[0].status).toBe('ok');
  });

  it('writes the ledger idempotently per (request id, call index)', async () => {
    const key = { tenantId, requestId: `req-${randomUUID()}`, callIndex: 0 };
    const call = { ...key, kind: 'query', stage: 'answer', provider: 'anthropic', model: 'claude-haiku-4-5', billedTo: 'platform' as const, estimatedCostMicros: 900 };
    await ledger.begin(call);
    await ledger.begin({ ...call, estimatedCostMicros: 1 }); // a retried write of the same call
    const outcome = { status: 'ok' as const, tokensIn: 10, tokensOut: 5, tokensThinking: 0, costMicros: 35, latencyMs: 3 };
    await ledger.complete(key, outcome);
    await ledger.complete(key, { ...outcome, costMicros: 999 }); // completing again changes nothing
    const rows = await ledger.listByRequest(tenantId, key.requestId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'ok', estimatedCostMicros: 900, costMicros: 35 });
  });

  it('embeds in batches and pads vectors to the store width', async () => {
    const ctx = context('ingest');
    const { vectors, choice } = await gateway.embed(ctx, ['Alice works at Acme.', 'Bob lives in Paris.']);
    expect(choice.spec).toBe('openai:text-embedding-3-small');
    expect(vectors).toHaveLength(2);
    expect(vectors.every((v) => v.length === 1024)).toBe(true);
    expect(double.openai.embeddings.requests).toHaveLength(1);
    const [row] = await ledger.listByRequest(tenantId, ctx.requestId);
    expect(row).toMatchObject({ stage: 'embed', kind: 'ingest', provider: 'openai', status: 'ok' });
    expect(row.tokensIn).toBeGreaterThan(0);
  });

  it('runs pipeline stages through the LLM, dropping citations of unknown sources', async () => {
    double.anthropic.reply({ text: '{"answer":"Alice works at Acme.","cited":["s1","s9"]}' });
    const answer = await runner.answer(context(), 'Where does Alice work?', [
      { id: 's1', text: 'Alice works at Acme.' },
      { id: 's2', text: 'Bob lives in Paris.' },
    ]);
    expect(answer).toEqual({ answer: 'Alice works at Acme.', cited: ['s1'], unresolvedCitations: 1 });
  });

  it('refuses per-request models that are malformed or have no price', () => {
    expect(() => gateway.router.choose('query', 'gpt-4')).toThrow(UnknownModelError);
    expect(() => gateway.router.choose('query', 'openai:no-such-model')).toThrow(/no known price/);
    expect(gateway.router.choose('query', 'openai:gpt-4.1-mini').spec).toBe('openai:gpt-4.1-mini');
  });

  it("bills a tenant on its own key with that key, never the platform's", async () => {
    const ownKeys = t.app.get(OwnKeysService);
    const tenant = await createTenant(t.app, { billing: 'own_key' });
    await ownKeys.setKey(tenant.id, 'anthropic', 'tenant-own-key');
    const ctx = await ownKeys.callContext(tenant.id, `req-${randomUUID()}`, 'query');
    double.anthropic.reply({ text: '{"answer":"ok"}' });
    await gateway.chatJson(ctx, 'answer', call, schema);
    expect(double.anthropic.requests[0].headers.authorization).toBe('Bearer tenant-own-key');
    const [row] = await ledger.listByRequest(tenant.id, ctx.requestId);
    expect(row.billedTo).toBe('own_key');
    // Its embeddings go to OpenAI, for which it has no key: refused, not paid by the platform.
    const error = await gateway.embed(ctx, ['x']).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'not_configured', provider: 'openai' });
    expect(double.openai.embeddings.requests).toHaveLength(0);
  });
});
