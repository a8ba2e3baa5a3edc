// The double is imported by path: `@loci/testing`'s index loads libraries above this one (quota), which load this lib.
import { LlmDouble, startLlmDouble } from '../../../testing/src/llm-double';
import { ModelCallError } from '../model-call.error';
import type { ChatRequest } from '../model.types';
import { THINKING_BUDGET_TOKENS } from './anthropic.chat-model';
import { OpenAiChatModel, OpenAiChatModelOptions } from './openai.chat-model';

let double: LlmDouble;
beforeAll(async () => {
  double = await startLlmDouble();
});
afterAll(() => double.close());
beforeEach(() => double.reset());

const chatModel = (options: Partial<OpenAiChatModelOptions> = {}) =>
  new OpenAiChatModel({ model: 'deepseek/deepseek-chat', apiKey: 'platform-key', baseURL: double.openaiBaseUrl, maxRetries: 2, ...options });

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  stage: 'keywords',
  system: 'Reply in JSON.',
  messages: [{ role: 'user', content: 'Where is Ada?' }],
  maxOutputTokens: 256,
  reasoning: 'none',
  json: false,
  timeoutMs: 2_000,
  ...overrides,
});

async function modelCallError(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

const sent = () => double.openai.chat.requests.map((r) => r.body);

describe('OpenAiChatModel through the double', () => {
  it('returns the text, usage, stop reason and model, sending what the request says', async () => {
    const completion = await chatModel().complete(request());

    expect(completion).toEqual({
      text: 'echo: Where is Ada?',
      stopReason: 'end',
      model: 'deepseek/deepseek-chat',
      usage: { inputTokens: expect.any(Number), outputTokens: 5, thinkingTokens: 0 },
    });
    expect(completion.usage.inputTokens).toBeGreaterThan(0);
    const [received] = double.openai.chat.requests;
    expect(received.path).toBe('/v1/chat/completions');
    expect(received.headers.authorization).toBe('Bearer platform-key');
    expect(received.body).toEqual({
      model: 'deepseek/deepseek-chat',
      max_tokens: 256,
      messages: [
        { role: 'system', content: 'Reply in JSON.' },
        { role: 'user', content: 'Where is Ada?' },
      ],
    });
  });

  it('asks for a JSON object when the request wants JSON', async () => {
    const completion = await chatModel().complete(request({ json: true }));

    expect(sent()[0].response_format).toEqual({ type: 'json_object' });
    expect(JSON.parse(completion.text)).toEqual({ echo: 'Where is Ada?' });
  });

  it('hands back JSON mode replies that are not JSON as written (the caller parses and repairs)', async () => {
    double.openai.chat.reply({ text: 'not json' });

    const completion = await chatModel().complete(request({ json: true }));

    expect(completion.text).toBe('not json');
  });

  it('sends no reasoning_effort to a model that does not support it, whatever the level', async () => {
    await chatModel().complete(request({ reasoning: 'high' }));

    expect(sent()[0]).not.toHaveProperty('reasoning_effort');
    expect(sent()[0].max_tokens).toBe(256);
  });

  it.each(['low', 'medium', 'high'] as const)('sends reasoning_effort %s with room for the reasoning', async (level) => {
    await chatModel({ supportsReasoningEffort: true }).complete(request({ reasoning: level }));

    expect(sent()[0]).toMatchObject({ reasoning_effort: level, max_completion_tokens: 256 + THINKING_BUDGET_TOKENS[level] });
    expect(sent()[0]).not.toHaveProperty('max_tokens');
  });

  it('sends no reasoning_effort for level none, unless told what none is for the model', async () => {
    await chatModel({ supportsReasoningEffort: true }).complete(request({ reasoning: 'none' }));
    await chatModel({ supportsReasoningEffort: true, effortForNone: 'minimal' }).complete(request({ reasoning: 'none' }));

    expect(sent()[0]).not.toHaveProperty('reasoning_effort');
    expect(sent()[0].max_completion_tokens).toBe(256);
    expect(sent()[1].reasoning_effort).toBe('minimal');
  });

  it('reports reasoning tokens as the thinking part of the output', async () => {
    double.openai.chat.reply({ text: 'In the lab.', reasoningTokens: 40 });

    const completion = await chatModel({ supportsReasoningEffort: true }).complete(request({ reasoning: 'medium' }));

    expect(completion.usage).toMatchObject({ outputTokens: 3 + 40, thinkingTokens: 40 });
  });

  it("puts a request's own API key on the wire, on its own client", async () => {
    const model = chatModel();
    await model.complete(request({ apiKey: 'tenant-own-key' }));
    await model.complete(request());

    expect(double.openai.chat.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tenant-own-key', 'Bearer platform-key']);
  });

  it('fails as not_configured without a key, sending nothing', async () => {
    const error = await modelCallError(chatModel({ apiKey: undefined }).complete(request()));

    expect(error).toMatchObject({ failure: 'not_configured', provider: 'openai', stage: 'keywords' });
    expect(double.openai.chat.requests).toHaveLength(0);
  });
});

describe('OpenAiChatModel retries (the SDK does them)', () => {
  it('retries a 429 after its retry-after, then succeeds', async () => {
    double.openai.chat.queue({ status: 429, retryAfterSeconds: 0.6 });

    const started = Date.now();
    const completion = await chatModel().complete(request());

    // 0.6 s is longer than the SDK's own first backoff (at most 0.5 s): the header was honoured.
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(completion.text).toBe('echo: Where is Ada?');
    expect(double.openai.chat.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('prefers retry-after-ms to retry-after', async () => {
    double.openai.chat.queue({ status: 429, retryAfterMs: 20, retryAfterSeconds: 30 });

    const started = Date.now();
    await chatModel().complete(request());

    expect(Date.now() - started).toBeLessThan(1_000);
    expect(double.openai.chat.requests).toHaveLength(2);
  });

  it('retries a connection reset, and a 500', async () => {
    double.openai.chat.queue({ reset: true }, { status: 500, retryAfterMs: 1 });

    const completion = await chatModel().complete(request());

    expect(completion.stopReason).toBe('end');
    expect(double.openai.chat.requests).toHaveLength(3);
  });

  it.each([
    [500, 'unavailable'],
    [503, 'unavailable'],
    [429, 'rate_limited'],
  ] as const)('gives up after maxRetries on %i: %s with the status', async (status, failure) => {
    double.openai.chat.reply({ status, retryAfterMs: 1 });

    const error = await modelCallError(chatModel({ maxRetries: 2 }).complete(request({ stage: 'summarize' })));

    expect(error).toMatchObject({ failure, status, provider: 'openai', model: 'deepseek/deepseek-chat', stage: 'summarize' });
    expect(double.openai.chat.requests).toHaveLength(3);
  });

  it.each([400, 401, 404, 422])('does not retry a %i: rejected with the status', async (status) => {
    double.openai.chat.reply({ status });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error).toMatchObject({ failure: 'rejected', status });
    expect(double.openai.chat.requests).toHaveLength(1);
  });

  it('times out when the reply is slower than the timeout', async () => {
    double.openai.chat.reply({ delayMs: 1_000 });

    const error = await modelCallError(chatModel({ maxRetries: 0 }).complete(request({ timeoutMs: 100 })));

    expect(error.failure).toBe('timeout');
    expect(error.status).toBeUndefined();
  });
});

describe('OpenAiChatModel output checks', () => {
  it('turns finish_reason length into a truncated error', async () => {
    double.openai.chat.queue({ truncated: true });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error).toMatchObject({ failure: 'truncated', provider: 'openai' });
  });

  it('turns a reply longer than the output cap into a truncated error', async () => {
    double.openai.chat.reply({ text: 'x'.repeat(400) });

    expect((await modelCallError(chatModel().complete(request({ maxOutputTokens: 10 })))).failure).toBe('truncated');
  });

  it('fails a body that is not JSON as bad_output, without retrying', async () => {
    double.openai.chat.queue({ malformed: true });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error.failure).toBe('bad_output');
    expect(double.openai.chat.requests).toHaveLength(1);
  });

  it('fails an empty reply, or one with only tool calls, as bad_output', async () => {
    double.openai.chat.queue({ text: '' }, { text: null, toolCalls: [{ name: 'lookup', arguments: '{}' }] });

    expect((await modelCallError(chatModel().complete(request()))).failure).toBe('bad_output');
    expect((await modelCallError(chatModel().complete(request()))).failure).toBe('bad_output');
  });

  it('fails an upstream error reported in a 200 (OpenRouter) as unavailable', async () => {
    double.openai.chat.reply({ body: { error: { code: 502, message: 'upstream overloaded' } } });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error.failure).toBe('unavailable');
    expect(error.message).toContain('upstream overloaded');
  });

  it('passes a refusal on as the stop reason', async () => {
    double.openai.chat.reply({ text: null, refusal: 'I cannot help with that.' });

    const completion = await chatModel().complete(request());

    expect(completion).toMatchObject({ text: 'I cannot help with that.', stopReason: 'refusal' });
  });
});
