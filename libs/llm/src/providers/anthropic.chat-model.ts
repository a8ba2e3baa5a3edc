import Anthropic from '@anthropic-ai/sdk';
import { ModelCallError } from '../model-call.error';
import { estimateChatInputTokens } from '../metering/token-counter';
import type { ChatCompletion, ChatModel, ChatRequest, OutputSchema, ReasoningLevel, StopReason, TextSink, TokenUsage } from '../model.types';
import { ClientCache } from './client-cache';
import { SdkErrorClasses, toModelCallError } from './sdk-errors';
import { StreamedReply } from './streamed-reply';

/**
 * Extended-thinking budgets per reasoning level. Anthropic's minimum is 1024, and `max_tokens`
 * must exceed the budget, so a call's `max_tokens` is the caller's output cap plus the budget.
 */
export const THINKING_BUDGET_TOKENS: Record<Exclude<ReasoningLevel, 'none'>, number> = {
  low: 1024,
  medium: 4096,
  high: 16384,
};

export interface AnthropicChatModelOptions {
  model: string;
  /** The platform's key; a request's own `apiKey` (a tenant billed `own_key`) replaces it. */
  apiKey?: string;
  /** Left out, the SDK reads `ANTHROPIC_BASE_URL` (and falls back to api.anthropic.com). */
  baseURL?: string;
  /** Retries of 408/409/429/5xx and connection failures, by the SDK (jittered backoff, honours retry-after). */
  maxRetries?: number;
}

const ANTHROPIC_ERRORS: SdkErrorClasses = {
  base: Anthropic.AnthropicError,
  api: Anthropic.APIError,
  connection: Anthropic.APIConnectionError,
  connectionTimeout: Anthropic.APIConnectionTimeoutError,
};

export class AnthropicChatModel implements ChatModel {
  readonly provider = 'anthropic' as const;
  readonly model: string;

  constructor(private readonly options: AnthropicChatModelOptions) {
    this.model = options.model;
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    const context = { provider: this.provider, model: this.model, stage: request.stage };
    const { apiKey, params } = this.prepare(request);
    let message: Anthropic.Message;
    try {
      message = await anthropicClient(this.options.baseURL, apiKey).messages.create(
        params,
        // Passing `timeout` also spares the SDK's guess from max_tokens, which refuses large
        // non-streaming calls ("Streaming is required") before sending them.
        { timeout: request.timeoutMs, maxRetries: this.options.maxRetries ?? 2, signal: request.signal },
      );
    } catch (error) {
      throw toModelCallError(error, ANTHROPIC_ERRORS, context, request.signal);
    }
    return this.toCompletion(message, request.stage, request.outputSchema?.name);
  }

  /**
   * The Messages API's server-sent events: the text deltas go to `onText`; message_start says
   * the input tokens, message_delta the output so far (cumulative) and the stop reason.
   */
  async stream(request: ChatRequest, onText: TextSink): Promise<ChatCompletion> {
    const context = { provider: this.provider, model: this.model, stage: request.stage };
    const { apiKey, params } = this.prepare(request);
    const reply = new StreamedReply(onText, () => estimateChatInputTokens(this.provider, request.system, request.messages));
    let model = this.model;
    let stopReason: Anthropic.StopReason | null = null;
    await reply.read(
      context,
      ANTHROPIC_ERRORS,
      request,
      (signal) =>
        anthropicClient(this.options.baseURL, apiKey).messages.create(
          { ...params, stream: true },
          { timeout: request.timeoutMs, maxRetries: this.options.maxRetries ?? 2, signal },
        ),
      (event) => {
        if (event.type === 'message_start') {
          model = event.message.model ?? model;
          reply.report(toUsage(event.message.usage));
        } else if (event.type === 'content_block_delta') {
          if (event.delta.type === 'text_delta') reply.append(event.delta.text);
          else if (event.delta.type === 'thinking_delta') reply.appendThinking(event.delta.thinking);
        } else if (event.type === 'message_delta') {
          stopReason = event.delta.stop_reason ?? stopReason;
          reply.report(deltaUsage(event.usage));
        }
      },
    );
    return reply.completion(context, toStopReason(stopReason), `stop reason ${stopReason}`, model);
  }

  /** The key and the Messages API parameters of a request (streamed or not). */
  private prepare(request: ChatRequest): { apiKey: string; params: Anthropic.MessageCreateParamsNonStreaming } {
    const apiKey = request.apiKey ?? this.options.apiKey;
    if (!apiKey) {
      throw new ModelCallError('not_configured', this.provider, this.model, request.stage, 'anthropic: no API key (ANTHROPIC_API_KEY)');
    }
    const budget = request.reasoning === 'none' ? 0 : THINKING_BUDGET_TOKENS[request.reasoning];
    return {
      apiKey,
      params: {
        model: this.model,
        max_tokens: request.maxOutputTokens + budget,
        ...(request.system ? { system: request.system } : {}),
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        ...(budget > 0 ? { thinking: { type: 'enabled' as const, budget_tokens: budget } } : {}),
        ...(request.outputSchema ? structuredOutput(request.outputSchema, budget > 0) : {}),
      },
    };
  }

  private toCompletion(message: Anthropic.Message, stage: string, tool: string | undefined): ChatCompletion {
    const usage = message?.usage ? toUsage(message.usage) : undefined;
    // A cut or empty reply was still billed: the error carries its usage for the ledger.
    const fail = (failure: 'bad_output' | 'truncated', why: string) =>
      new ModelCallError(failure, this.provider, this.model, stage, `anthropic ${this.model} (${stage}): ${why}`, undefined, { usage });
    if (!message || !Array.isArray(message.content) || !usage) throw fail('bad_output', 'the reply was not a message');

    const stopReason = toStopReason(message.stop_reason);
    if (stopReason === 'max_tokens') throw fail('truncated', `generation stopped at ${message.stop_reason}; a cut answer is not used`);
    // The forced tool's input is the structured reply; without it, the text blocks are (thinking
    // blocks are the model's scratch work, not the answer).
    const toolUse = message.content.find((block) => block.type === 'tool_use' && block.name === tool);
    const text =
      toolUse?.type === 'tool_use'
        ? JSON.stringify(toolUse.input)
        : message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    if (text.trim() === '') throw fail('bad_output', `empty reply (stop reason ${message.stop_reason})`);

    return { text, stopReason, model: message.model ?? this.model, usage };
  }
}

/**
 * Anthropic's structured output: the stage's schema as the one tool, whose input is the reply.
 * Forced (`tool_choice: tool`) unless thinking is on, which the API allows only with `auto`;
 * then the model may still answer in text, which is parsed as before.
 */
function structuredOutput(schema: OutputSchema, thinking: boolean): Pick<Anthropic.MessageCreateParamsNonStreaming, 'tools' | 'tool_choice'> {
  return {
    tools: [{ name: schema.name, description: schema.description, input_schema: schema.schema as Anthropic.Tool.InputSchema }],
    tool_choice: thinking ? { type: 'auto' } : { type: 'tool', name: schema.name },
  };
}

function toUsage(usage: Anthropic.Usage): TokenUsage {
  return {
    // Cache writes and reads are input too; this service does not set cache_control, so they are 0.
    inputTokens: usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0),
    // output_tokens already includes thinking; thinkingTokens is the part of it spent thinking,
    // when the API reports it (output_tokens_details), so it must not be added on top.
    outputTokens: usage.output_tokens,
    thinkingTokens: (usage as { output_tokens_details?: { thinking_tokens?: number } }).output_tokens_details?.thinking_tokens ?? 0,
  };
}

/** A message_delta's usage: output so far; input only when the API repeats it there. */
function deltaUsage(usage: Anthropic.MessageDeltaUsage): Partial<TokenUsage> {
  const input =
    usage.input_tokens === null || usage.input_tokens === undefined
      ? undefined
      : usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  return {
    inputTokens: input,
    outputTokens: usage.output_tokens,
    thinkingTokens: (usage as { output_tokens_details?: { thinking_tokens?: number } | null }).output_tokens_details?.thinking_tokens,
  };
}

function toStopReason(reason: Anthropic.StopReason | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_use':
      return 'end';
    // Both cut the answer: one at max_tokens, the other at the context window.
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    default:
      return 'other';
  }
}

/** One client per (base URL, key): clients hold keep-alive connections and are safe to share. */
const clients = new ClientCache(
  (baseURL, apiKey) =>
    // With tracing on (libs/tracing): the SDK's own span, under the gateway's, never records
    // prompts or replies, whatever ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE says (they are
    // tenant text); and the SDK does not write `traceparent` itself, because the fetch
    // instrumentation adds its own beside it and a request with two is no trace at all.
    new Anthropic({ apiKey, baseURL, openTelemetry: { propagation: false, traces: { contentMode: 'metadata_only' } } }),
);
const anthropicClient = (baseURL: string | undefined, apiKey: string) => clients.get(baseURL, apiKey);
