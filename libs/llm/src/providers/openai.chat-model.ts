import OpenAI from 'openai';
import { ModelCallError } from '../model-call.error';
import { estimateChatInputTokens } from '../metering/token-counter';
import type { ChatCompletion, ChatModel, ChatRequest, OutputSchema, StopReason, TextSink, TokenUsage } from '../model.types';
import { THINKING_BUDGET_TOKENS } from './anthropic.chat-model';
import { ClientCache } from './client-cache';
import { SdkErrorClasses, toModelCallError } from './sdk-errors';
import { StreamedReply } from './streamed-reply';

export interface OpenAiChatModelOptions {
  model: string;
  /** The platform's key; a request's own `apiKey` replaces it. */
  apiKey?: string;
  /** Left out, the SDK reads `OPENAI_BASE_URL` (OpenAI, OpenRouter, vLLM, Ollama: anything that includes `/v1`). */
  baseURL?: string;
  /** Retries of 408/409/429/5xx and connection failures, by the SDK (jittered backoff, honours retry-after). */
  maxRetries?: number;
  /**
   * Send `reasoning_effort` for levels other than `none`. Off by default: OpenRouter/DeepSeek,
   * vLLM and Ollama reject parameters they do not know.
   */
  supportsReasoningEffort?: boolean;
  /**
   * What to send as `reasoning_effort` for level `none` on a reasoning model, which otherwise
   * reasons at its default (`medium` before gpt-5.1): `none` (gpt-5.1+) or `minimal` (gpt-5).
   * Left out, nothing is sent.
   */
  effortForNone?: 'none' | 'minimal';
  /**
   * The output cap's name. OpenAI's reasoning models reject `max_tokens`; many compatible
   * servers only know it. Default: `max_completion_tokens` when `supportsReasoningEffort`.
   */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
}

export const OPENAI_ERRORS: SdkErrorClasses = {
  base: OpenAI.OpenAIError,
  api: OpenAI.APIError,
  connection: OpenAI.APIConnectionError,
  connectionTimeout: OpenAI.APIConnectionTimeoutError,
};

export class OpenAiChatModel implements ChatModel {
  readonly provider = 'openai' as const;
  readonly model: string;
  /**
   * Set once the endpoint has refused a `json_schema` response format (DeepSeek, older vLLM and
   * Ollama): from then on this model is asked for `json_object`, without the wasted call.
   */
  private jsonSchemaRefused = false;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.model = options.model;
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    const context = { provider: this.provider, model: this.model, stage: request.stage };
    const { apiKey, params } = this.prepare(request);
    const create = (responseFormat: ResponseFormat | undefined) =>
      openAiClient(this.options.baseURL, apiKey).chat.completions.create(
        { ...params, ...(responseFormat ? { response_format: responseFormat } : {}) },
        { timeout: request.timeoutMs, maxRetries: this.options.maxRetries ?? 2, signal: request.signal },
      );

    const schema = request.json && !this.jsonSchemaRefused ? request.outputSchema : undefined;
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await create(schema ? jsonSchemaFormat(schema) : request.json ? JSON_OBJECT : undefined).catch((error: unknown) => {
        if (!schema || !refusesResponseFormat(error)) throw error;
        this.jsonSchemaRefused = true;
        return create(JSON_OBJECT);
      });
    } catch (error) {
      throw toModelCallError(error, OPENAI_ERRORS, context, request.signal);
    }
    return this.toCompletion(completion, request.stage);
  }

  /**
   * Chat completions streamed as server-sent chunks: content deltas go to `onText`; the usage
   * comes in a last chunk without choices, which `stream_options.include_usage` asks for (a
   * compatible server that sends none leaves it to be estimated).
   */
  async stream(request: ChatRequest, onText: TextSink): Promise<ChatCompletion> {
    const context = { provider: this.provider, model: this.model, stage: request.stage };
    const { apiKey, params } = this.prepare(request);
    const reply = new StreamedReply(onText, () => estimateChatInputTokens(this.provider, request.system, request.messages));
    let model = this.model;
    let finishReason: string | null = null;
    let refusal = '';
    await reply.read(
      context,
      OPENAI_ERRORS,
      request,
      (signal) =>
        openAiClient(this.options.baseURL, apiKey).chat.completions.create(
          { ...params, stream: true, stream_options: { include_usage: true } },
          { timeout: request.timeoutMs, maxRetries: this.options.maxRetries ?? 2, signal },
        ),
      (chunk) => {
        model = chunk.model ?? model;
        const choice = chunk.choices?.[0];
        if (choice) {
          reply.append(choice.delta?.content);
          refusal += choice.delta?.refusal ?? '';
          finishReason = choice.finish_reason ?? finishReason;
        }
        if (chunk.usage) {
          reply.report({
            inputTokens: chunk.usage.prompt_tokens,
            outputTokens: chunk.usage.completion_tokens,
            thinkingTokens: chunk.usage.completion_tokens_details?.reasoning_tokens ?? 0,
          });
        }
      },
    );
    return reply.completion(context, toStopReason(finishReason, refusal || null), `finish_reason ${finishReason}`, model, reply.text || refusal);
  }

  /** The key and the chat-completions parameters of a request (streamed or not), without a response format. */
  private prepare(request: ChatRequest) {
    const apiKey = request.apiKey ?? this.options.apiKey;
    if (!apiKey) {
      throw new ModelCallError('not_configured', this.provider, this.model, request.stage, 'openai: no API key (OPENAI_API_KEY)');
    }
    const supportsEffort = this.options.supportsReasoningEffort ?? false;
    const effort = !supportsEffort ? undefined : request.reasoning === 'none' ? this.options.effortForNone : request.reasoning;
    // Reasoning tokens count against the output cap: leave them the same room Anthropic gets.
    const headroom = supportsEffort && request.reasoning !== 'none' ? THINKING_BUDGET_TOKENS[request.reasoning] : 0;
    const cap = request.maxOutputTokens + headroom;
    const capParam = this.options.maxTokensParam ?? (supportsEffort ? 'max_completion_tokens' : 'max_tokens');
    const params = {
      model: this.model,
      messages: [
        ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
        ...request.messages.map((m) => ({ role: m.role, content: m.content })),
      ],
      ...(capParam === 'max_tokens' ? { max_tokens: cap } : { max_completion_tokens: cap }),
      ...(effort ? { reasoning_effort: effort } : {}),
    };
    return { apiKey, params };
  }

  private toCompletion(completion: OpenAI.ChatCompletion, stage: string): ChatCompletion {
    const usage: TokenUsage = {
      inputTokens: completion?.usage?.prompt_tokens ?? 0,
      // completion_tokens includes reasoning tokens; thinkingTokens is that part, not an extra.
      outputTokens: completion?.usage?.completion_tokens ?? 0,
      thinkingTokens: completion?.usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    };
    // A cut or empty reply was still billed: the error carries its usage for the ledger.
    const fail = (failure: 'bad_output' | 'truncated' | 'unavailable', why: string) =>
      new ModelCallError(failure, this.provider, this.model, stage, `openai ${this.model} (${stage}): ${why}`, undefined, { usage });
    // OpenRouter reports an upstream failure as a 200 whose body holds `error` instead of choices.
    const upstream = (completion as { error?: { message?: string } } | undefined)?.error;
    if (upstream) throw fail('unavailable', `the provider behind the endpoint failed: ${upstream.message ?? 'no message'}`);
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice?.message) throw fail('bad_output', 'the reply had no choices');

    const stopReason = toStopReason(choice.finish_reason, choice.message.refusal);
    if (stopReason === 'max_tokens') throw fail('truncated', 'generation stopped at the output cap (finish_reason length); a cut answer is not used');
    const text = choice.message.content ?? choice.message.refusal ?? '';
    if (text.trim() === '') throw fail('bad_output', `empty reply (finish_reason ${choice.finish_reason})`);

    return { text, stopReason, model: completion.model ?? this.model, usage };
  }
}

type ResponseFormat = NonNullable<OpenAI.ChatCompletionCreateParams['response_format']>;

const JSON_OBJECT: ResponseFormat = { type: 'json_object' };

/**
 * Not `strict`: strict mode wants every property required and no `default`, while the stages'
 * schemas have optional fields; the schema still steers the model, and near-misses are mended.
 */
function jsonSchemaFormat(schema: OutputSchema): ResponseFormat {
  return { type: 'json_schema', json_schema: { name: schema.name, description: schema.description, schema: schema.schema, strict: false } };
}

/** A 400 about the response format: the endpoint does not know `json_schema`. */
function refusesResponseFormat(error: unknown): boolean {
  if (!(error instanceof OpenAI.APIError) || error.status !== 400) return false;
  const param = (error.error as { param?: unknown } | undefined)?.param;
  return param === 'response_format' || /response_format|json_schema/i.test(error.message);
}

function toStopReason(reason: string | null | undefined, refusal: string | null | undefined): StopReason {
  if (reason === 'length') return 'max_tokens';
  if (reason === 'content_filter' || refusal) return 'refusal';
  if (reason === 'stop') return 'end';
  return 'other';
}

/**
 * One client per (base URL, key), shared by the chat model and the embedder: clients hold
 * keep-alive connections. Retries and timeouts are per call, so they are not part of the key.
 */
const clients = new ClientCache((baseURL, apiKey) => new OpenAI({ apiKey, baseURL, fetch: fetchKeepingAbortErrors }));

export function openAiClient(baseURL: string | undefined, apiKey: string): OpenAI {
  return clients.get(baseURL, apiKey);
}

/**
 * openai 6.30 recognises a timed-out fetch by `instanceof Error`; an abort error from another
 * realm (undici's DOMException seen from jest's sandbox) fails that test and loses its name, so
 * a timeout would read as a connection failure. Re-thrown as this realm's Error it stays a timeout.
 * Outside a sandbox the abort error already is an Error, and this passes it through untouched.
 * (@anthropic-ai/sdk 1.14 handles cross-realm errors itself.)
 */
const fetchKeepingAbortErrors: typeof fetch = (input, init) =>
  fetch(input, init).catch((error: unknown) => {
    const foreign = error as { name?: unknown; message?: unknown } | null;
    if (error instanceof Error || foreign?.name !== 'AbortError') throw error;
    const local = new Error(String(foreign.message), { cause: error });
    local.name = 'AbortError';
    throw local;
  });
