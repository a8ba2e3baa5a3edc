// The double is imported by path: `@loci/testing`'s index loads libraries above this one (quota), which load this lib.
import { LlmDouble, startLlmDouble } from '../../../testing/src/llm-double';
import { ModelCallError } from '../model-call.error';
import type { ChatRequest } from '../model.types';
import { AnthropicChatModel, AnthropicChatModelOptions, THINKING_BUDGET_TOKENS } from './anthropic.chat-model';

let double: LlmDouble;
beforeAll(async () => {
  double = await startLlmDouble();
});
afterAll(() => double.close());
beforeEach(() => double.reset());

const chatModel = (options: Partial<AnthropicChatModelOptions> = {}) =>
  new AnthropicChatModel({ model: 'claude-test', apiKey: 'platform-key', baseURL: double.anthropicBaseUrl, maxRetries: 2, ...options });

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  stage: 'answer',
  system: 'Answer briefly.',
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

const sent = () => double.anthropic.requests.map((r) => r.body);

describe('AnthropicChatModel through the double', () => {
  it('returns the text, usage, stop reason and model, sending what the request says', async () => {
    const completion = await chatModel().complete(request());

    expect(completion).toEqual({
      text: 'echo: Where is Ada?',
      stopReason: 'end',
      model: 'claude-test',
      usage: { inputTokens: expect.any(Number), outputTokens: 5, thinkingTokens: 0 },
    });
    expect(completion.usage.inputTokens).toBeGreaterThan(0);
    const [received] = double.anthropic.requests;
    expect(received.path).toBe('/v1/messages');
    // SDK 1.x (API version 2026-10-21) sends the key as a bearer token, not as x-api-key.
    expect(received.headers.authorization).toBe('Bearer platform-key');
    expect(received.body).toEqual({
      model: 'claude-test',
      max_tokens: 256,
      system: 'Answer briefly.',
      messages: [{ role: 'user', content: 'Where is Ada?' }],
    });
  });

  it.each(['low', 'medium', 'high'] as const)('sends the %s thinking budget and raises max_tokens by it', async (level) => {
    await chatModel().complete(request({ reasoning: level }));

    const budget = THINKING_BUDGET_TOKENS[level];
    expect(sent()[0]).toMatchObject({ thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: 256 + budget });
  });

  it('sends no thinking field for level none', async () => {
    await chatModel().complete(request({ reasoning: 'none' }));
    expect(sent()[0]).not.toHaveProperty('thinking');
  });

  it('keeps thinking blocks out of the text, and reports thinking as part of the output', async () => {
    double.anthropic.reply({ thinking: 'Ada is in the lab, per the notes.', text: 'In the lab.' });

    const completion = await chatModel().complete(request({ reasoning: 'low' }));

    expect(completion.text).toBe('In the lab.');
    expect(completion.usage.thinkingTokens).toBe(9);
    expect(completion.usage.outputTokens).toBe(9 + 3);
  });

  it('leaves JSON to the prompt: no API parameter, and the reply comes back as written', async () => {
    double.anthropic.reply({ text: 'not json' });

    const completion = await chatModel().complete(request({ json: true }));

    expect(completion.text).toBe('not json');
    expect(Object.keys(sent()[0]).sort()).toEqual(['max_tokens', 'messages', 'model', 'system']);
  });

  it("puts a request's own API key on the wire, on its own client", async () => {
    const model = chatModel();
    await model.complete(request({ apiKey: 'tenant-own-key' }));
    await model.complete(request());

    expect(double.anthropic.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tenant-own-key', 'Bearer platform-key']);
  });

  it('fails as not_configured without a key, sending nothing', async () => {
    const error = await modelCallError(chatModel({ apiKey: undefined }).complete(request()));

    expect(error).toMatchObject({ failure: 'not_configured', provider: 'anthropic', model: 'claude-test', stage: 'answer' });
    expect(double.anthropic.requests).toHaveLength(0);
  });
});

describe('AnthropicChatModel retries (the SDK does them)', () => {
  it('retries a 429 after its retry-after, then succeeds', async () => {
    double.anthropic.queue({ status: 429, retryAfterSeconds: 0.6 });

    const started = Date.now();
    const completion = await chatModel().complete(request());

    // 0.6 s is longer than the SDK's own first backoff (at most 0.5 s): the header was honoured.
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    expect(completion.text).toBe('echo: Where is Ada?');
    expect(double.anthropic.requests.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1']);
  });

  it('retries a connection reset, and a 500', async () => {
    // A reset carries no retry-after: the SDK waits its own first backoff (0.375-0.5 s).
    double.anthropic.queue({ reset: true }, { status: 500, retryAfterMs: 1 });

    const completion = await chatModel().complete(request());

    expect(completion.stopReason).toBe('end');
    expect(double.anthropic.requests).toHaveLength(3);
  });

  it.each([
    [503, 'unavailable'],
    [529, 'unavailable'],
    [429, 'rate_limited'],
  ] as const)('gives up after maxRetries on %i: %s with the status', async (status, failure) => {
    double.anthropic.reply({ status, retryAfterMs: 1 });

    const error = await modelCallError(chatModel({ maxRetries: 2 }).complete(request({ stage: 'extract' })));

    expect(error).toMatchObject({ failure, status, provider: 'anthropic', model: 'claude-test', stage: 'extract' });
    expect(double.anthropic.requests).toHaveLength(3);
  });

  it('gives up on connection resets as unavailable', async () => {
    double.anthropic.reply({ reset: true });

    const error = await modelCallError(chatModel({ maxRetries: 1 }).complete(request()));

    expect(error).toMatchObject({ failure: 'unavailable', status: undefined });
    expect(double.anthropic.requests).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 413])('does not retry a %i: rejected with the status', async (status) => {
    double.anthropic.reply({ status });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error).toMatchObject({ failure: 'rejected', status });
    expect(double.anthropic.requests).toHaveLength(1);
  });

  it('times out when the reply is slower than the timeout', async () => {
    double.anthropic.reply({ delayMs: 1_000 });

    const error = await modelCallError(chatModel({ maxRetries: 0 }).complete(request({ timeoutMs: 100 })));

    expect(error.failure).toBe('timeout');
  });

  it('retries a timed-out attempt (the timeout is per attempt)', async () => {
    double.anthropic.queue({ delayMs: 1_000 });

    const completion = await chatModel({ maxRetries: 1 }).complete(request({ timeoutMs: 150 }));

    expect(completion.text).toBe('echo: Where is Ada?');
    expect(double.anthropic.requests).toHaveLength(2);
  });
});

describe('AnthropicChatModel output checks', () => {
  it('turns a reply cut at max_tokens into a truncated error', async () => {
    double.anthropic.queue({ truncated: true });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error).toMatchObject({ failure: 'truncated', provider: 'anthropic' });
  });

  it('turns a reply longer than the output cap into a truncated error', async () => {
    double.anthropic.reply({ text: 'x'.repeat(400) });

    const error = await modelCallError(chatModel().complete(request({ maxOutputTokens: 10 })));

    expect(error.failure).toBe('truncated');
  });

  it('fails a body that is not JSON as bad_output, without retrying', async () => {
    double.anthropic.queue({ malformed: true });

    const error = await modelCallError(chatModel().complete(request()));

    expect(error.failure).toBe('bad_output');
    expect(double.anthropic.requests).toHaveLength(1);
  });

  it('fails an empty reply, or one with only tool calls, as bad_output', async () => {
    double.anthropic.queue({ text: '' }, { content: [{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} }], stopReason: 'tool_use' });

    expect((await modelCallError(chatModel().complete(request()))).failure).toBe('bad_output');
    expect((await modelCallError(chatModel().complete(request()))).failure).toBe('bad_output');
  });

  it('passes a refusal on as the stop reason', async () => {
    double.anthropic.reply({ text: 'I cannot help with that.', stopReason: 'refusal' });

    const completion = await chatModel().complete(request());

    expect(completion.stopReason).toBe('refusal');
  });
});
