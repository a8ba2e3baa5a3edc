// The double is imported by path: `@loci/testing`'s index loads libraries above this one (quota), which load this lib.
import { LlmDouble, startLlmDouble } from '../../../testing/src/llm-double';
import { ModelCallError } from '../model-call.error';
import type { ChatModel, ChatRequest } from '../model.types';
import { AnthropicChatModel } from './anthropic.chat-model';
import { OpenAiChatModel } from './openai.chat-model';

let double: LlmDouble;
beforeAll(async () => {
  double = await startLlmDouble();
});
afterAll(() => double.close());
beforeEach(() => double.reset());

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  stage: 'answer',
  system: 'Answer from the sources.',
  messages: [{ role: 'user', content: 'Where does Alice work?' }],
  maxOutputTokens: 256,
  reasoning: 'none',
  json: false,
  timeoutMs: 5_000,
  ...overrides,
});

const TEXT = 'Alice works at Acme Corporation in Berlin [1].';

/** Each provider's SDK streaming against the double, which speaks that provider's SSE wire format. */
const providers = [
  {
    name: 'anthropic',
    model: () => new AnthropicChatModel({ model: 'claude-haiku-4-5', apiKey: 'k', baseURL: double.anthropicBaseUrl, maxRetries: 0 }),
    endpoint: () => double.anthropic,
    reply: { text: TEXT, usage: { input_tokens: 812, output_tokens: 37 } },
    // message_start, ping, content_block_start, then two text deltas
    stallAfterTwoPieces: 5,
    reportsInputBeforeTheEnd: true,
  },
  {
    name: 'openai',
    model: () => new OpenAiChatModel({ model: 'gpt-4.1-mini', apiKey: 'k', baseURL: double.openaiBaseUrl, maxRetries: 0 }),
    endpoint: () => double.openai.chat,
    reply: { text: TEXT, usage: { prompt_tokens: 812, completion_tokens: 37, total_tokens: 849 } },
    // the role chunk, then two content chunks
    stallAfterTwoPieces: 3,
    reportsInputBeforeTheEnd: false,
  },
] as const;

async function failureOf(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

describe.each(providers)('$name ChatModel.stream through the double', (provider) => {
  let model: ChatModel;
  beforeEach(() => {
    model = provider.model();
  });

  it('hands on the text piece by piece and settles to the usage the stream reported', async () => {
    provider.endpoint().reply(provider.reply);
    const pieces: string[] = [];
    const completion = await model.stream(request(), (piece) => pieces.push(piece));

    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(TEXT);
    expect(completion).toEqual({ text: TEXT, stopReason: 'end', model: expect.any(String), usage: { inputTokens: 812, outputTokens: 37, thinkingTokens: 0 } });
    const [sent] = provider.endpoint().requests;
    expect(sent.body.stream).toBe(true);
    if (provider.name === 'openai') expect(sent.body.stream_options).toEqual({ include_usage: true });
  });

  it('stops the provider request when the caller aborts, billing what had arrived', async () => {
    provider.endpoint().reply({ ...provider.reply, stallAfterEvents: provider.stallAfterTwoPieces });
    const caller = new AbortController();
    const pieces: string[] = [];
    const failure = await failureOf(
      model.stream(request({ signal: caller.signal }), (piece) => {
        pieces.push(piece);
        if (pieces.length === 2) caller.abort();
      }),
    );

    expect(failure.failure).toBe('aborted');
    const [sent] = provider.endpoint().requests;
    await sent.ended;
    expect(sent.clientClosed).toBe(true);
    // Two pieces arrived ("Alice ", "works "): at least their tokens, never the full reply's 37.
    expect(failure.usage!.outputTokens).toBeGreaterThanOrEqual(2);
    expect(failure.usage!.outputTokens).toBeLessThan(37);
    // Anthropic says the input in message_start; OpenAI only at the end, so it is estimated.
    if (provider.reportsInputBeforeTheEnd) expect(failure.usage!.inputTokens).toBe(812);
    else expect(failure.usage!.inputTokens).toBeGreaterThan(0);
  });

  it('ends a stream that stalls past the timeout as a timeout, with the usage so far', async () => {
    provider.endpoint().reply({ ...provider.reply, stallAfterEvents: provider.stallAfterTwoPieces });
    const failure = await failureOf(model.stream(request({ timeoutMs: 300 }), () => undefined));
    expect(failure.failure).toBe('timeout');
    expect(failure.usage!.outputTokens).toBeGreaterThanOrEqual(2);
    const [sent] = provider.endpoint().requests;
    await sent.ended;
    expect(sent.clientClosed).toBe(true);
  });

  it('turns a stream cut at max_tokens into a truncated error carrying its usage', async () => {
    provider.endpoint().reply({ ...provider.reply, truncated: true });
    const failure = await failureOf(model.stream(request(), () => undefined));
    expect(failure.failure).toBe('truncated');
    expect(failure.usage).toEqual({ inputTokens: 812, outputTokens: 37, thinkingTokens: 0 });
  });

  it('bills nothing for a request refused before its first event', async () => {
    provider.endpoint().reply({ status: 500 });
    const failure = await failureOf(model.stream(request(), () => undefined));
    expect(failure.failure).toBe('unavailable');
    expect(failure.usage).toBeUndefined();
  });
});
