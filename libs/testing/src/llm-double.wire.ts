/**
 * Wire formats of the LLM test double: the success and error bodies the Anthropic Messages API
 * and the OpenAI chat-completions and embeddings APIs send, close enough for the real SDKs to
 * parse them. Token counts are estimated (~4 characters a token) so metering tests have numbers.
 */

/** The double's token estimate: about four characters a token, at least one for non-empty text. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** What an Anthropic reply says; everything left out gets a default computed from the request. */
export interface AnthropicReply {
  text?: string;
  /** Thinking text; by default there is some whenever the request enabled thinking. */
  thinking?: string;
  /** Raw content blocks (e.g. `tool_use`), sent instead of the text and thinking blocks. */
  content?: unknown[];
  /**
   * The input of the `tool_use` block sent when the request forces a tool (`tool_choice` of type
   * `tool`), as the API always answers then; by default `text` parsed as JSON.
   */
  toolInput?: unknown;
  stopReason?: string;
  model?: string;
  usage?: Record<string, unknown>;
}

/** What an OpenAI chat reply says; everything left out gets a default computed from the request. */
export interface OpenAiChatReply {
  /** `null` sends a message without content (e.g. only tool calls). */
  text?: string | null;
  toolCalls?: Array<{ name: string; arguments: string }>;
  refusal?: string;
  /**
   * Answer a request for a `json_schema` response format with the 400 of an endpoint that does
   * not support it (DeepSeek's words); other requests get the reply.
   */
  refuseJsonSchema?: boolean;
  finishReason?: string;
  /** Sent as `usage.completion_tokens_details.reasoning_tokens` (and counted in completion_tokens). */
  reasoningTokens?: number;
  model?: string;
  usage?: Record<string, unknown>;
}

export interface OpenAiEmbeddingsReply {
  /** One vector per input; by default `embeddingFor(input, dimensions)`. */
  vectors?: number[][];
  model?: string;
  promptTokens?: number;
  /** Send the items last first (indices intact), as servers may: clients must order by `index`. */
  reversed?: boolean;
}

function lastUserText(messages: any[] | undefined): string {
  const user = [...(messages ?? [])].reverse().find((m) => m?.role === 'user');
  if (!user) return '';
  if (typeof user.content === 'string') return user.content;
  return (user.content ?? []).map((block: any) => block?.text ?? '').join('');
}

function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((block: any) => block?.text ?? '').join('') : '';
}

/** Real APIs stop at `max_tokens`; the double cuts its text the same way. */
function cutToMaxTokens(text: string, maxTokens: unknown): { text: string; cut: boolean } {
  if (typeof maxTokens !== 'number' || estimateTokens(text) <= maxTokens) return { text, cut: false };
  return { text: text.slice(0, Math.max(0, maxTokens) * 4), cut: true };
}

/** The tool a request forces the model to call (`tool_choice: {type: "tool", name}`), if any. */
function forcedTool(body: any): string | undefined {
  return body.tool_choice?.type === 'tool' && typeof body.tool_choice.name === 'string' ? body.tool_choice.name : undefined;
}

/**
 * A scripted text as a forced tool's input: the JSON object it holds (tests script replies in
 * prose or code fences for the text path; through a tool the model would send just the object),
 * else the text in an object, since a tool's input always is one.
 */
function parsedOrText(text: string): unknown {
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/i)?.[1];
  const braced = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  for (const candidate of [text, fenced, braced]) {
    try {
      const value = candidate ? JSON.parse(candidate) : undefined;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // not this one
    }
  }
  return { text };
}

export function anthropicMessage(body: any, reply: AnthropicReply, truncated: boolean) {
  const tool = forcedTool(body);
  if (tool !== undefined && reply.content === undefined && !truncated) return anthropicToolUse(body, reply, tool);
  const requested = reply.text ?? `echo: ${lastUserText(body.messages)}`;
  const { text, cut } = truncated ? { text: requested.slice(0, requested.length / 2), cut: true } : cutToMaxTokens(requested, body.max_tokens);
  const thinking = reply.thinking ?? (body.thinking?.type === 'enabled' ? `thinking about: ${lastUserText(body.messages)}` : undefined);
  const content = reply.content ?? [
    ...(thinking === undefined ? [] : [{ type: 'thinking', thinking, signature: 'double-signature' }]),
    { type: 'text', text, citations: null },
  ];
  const promptText = systemText(body.system) + (body.messages ?? []).map((m: any) => JSON.stringify(m.content)).join('');
  const thinkingTokens = thinking === undefined ? 0 : estimateTokens(thinking);
  return {
    id: `msg_double_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? body.model,
    content,
    stop_reason: cut ? 'max_tokens' : (reply.stopReason ?? 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: estimateTokens(promptText),
      output_tokens: estimateTokens(text) + thinkingTokens,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      ...(thinkingTokens > 0 ? { output_tokens_details: { thinking_tokens: thinkingTokens } } : {}),
      ...reply.usage,
    },
  };
}

/** A forced tool's answer: one `tool_use` block, stop reason `tool_use`. */
function anthropicToolUse(body: any, reply: AnthropicReply, tool: string) {
  const input = reply.toolInput ?? parsedOrText(reply.text ?? JSON.stringify({ echo: lastUserText(body.messages) }));
  const promptText = systemText(body.system) + JSON.stringify(body.tools ?? []) + (body.messages ?? []).map((m: any) => JSON.stringify(m.content)).join('');
  return {
    id: `msg_double_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model: reply.model ?? body.model,
    content: [{ type: 'tool_use', id: `toolu_double_${Date.now()}`, name: tool, input }],
    stop_reason: reply.stopReason ?? 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: estimateTokens(promptText),
      output_tokens: estimateTokens(JSON.stringify(input)),
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
      ...reply.usage,
    },
  };
}

/** DeepSeek's answer to a `json_schema` response format, which it does not support. */
export const OPENAI_JSON_SCHEMA_REFUSAL = {
  error: { message: 'This response_format type is unavailable now', type: 'invalid_request_error', param: null, code: 'invalid_request_error' },
};

export function openAiChatCompletion(body: any, reply: OpenAiChatReply, truncated: boolean) {
  const asJson = body.response_format?.type === 'json_object' || body.response_format?.type === 'json_schema';
  const echoed = lastUserText(body.messages);
  const requested = reply.text === undefined ? (asJson ? JSON.stringify({ echo: echoed }) : `echo: ${echoed}`) : reply.text;
  const limit = body.max_completion_tokens ?? body.max_tokens;
  const { text, cut } =
    requested === null ? { text: null, cut: false } : truncated ? { text: requested.slice(0, requested.length / 2), cut: true } : cutToMaxTokens(requested, limit);
  const reasoningTokens = reply.reasoningTokens ?? 0;
  const promptTokens = estimateTokens((body.messages ?? []).map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join(''));
  const completionTokens = estimateTokens(text ?? '') + reasoningTokens;
  const toolCalls = reply.toolCalls?.map((call, i) => ({ id: `call_${i}`, type: 'function', function: call }));
  return {
    id: `chatcmpl-double-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? body.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: reply.refusal ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
        finish_reason: cut ? 'length' : (reply.finishReason ?? (toolCalls ? 'tool_calls' : 'stop')),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
      ...reply.usage,
    },
  };
}

/**
 * A deterministic unit-length vector for a text (FNV-1a seeded xorshift), each component a
 * float32 so that the base64 and float encodings carry exactly the same numbers.
 */
export function embeddingFor(text: string, dimensions: number): number[] {
  let seed = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) seed = Math.imul(seed ^ text.charCodeAt(i), 0x01000193) >>> 0;
  const raw: number[] = [];
  for (let i = 0; i < dimensions; i++) {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    seed >>>= 0;
    raw.push(seed / 0xffffffff - 0.5);
  }
  const norm = Math.hypot(...raw) || 1;
  return raw.map((x) => Math.fround(x / norm));
}

/** Little-endian float32 bytes in base64, as OpenAI sends for `encoding_format: "base64"`. */
export function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}

export function embeddingInputs(body: any): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input)) return input.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  return [];
}

export function openAiEmbeddings(body: any, reply: OpenAiEmbeddingsReply, nativeDimensions: number) {
  const inputs = embeddingInputs(body);
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : nativeDimensions;
  const vectors = reply.vectors ?? inputs.map((input) => embeddingFor(input, dimensions));
  const promptTokens = reply.promptTokens ?? inputs.reduce((sum, input) => sum + estimateTokens(input), 0);
  const data = vectors.map((vector, index) => ({
    object: 'embedding',
    index,
    embedding: body.encoding_format === 'base64' ? float32Base64(vector) : vector,
  }));
  return {
    object: 'list',
    model: reply.model ?? body.model,
    data: reply.reversed ? data.reverse() : data,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(status: number) {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message: `double: scripted ${status}` } };
}

export function openAiErrorBody(status: number) {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message: `double: scripted ${status}`, type, param: null, code: null } };
}

/** One server-sent event: its `event:` name (Anthropic names every event; OpenAI none) and JSON data. */
export interface WireEvent {
  event?: string;
  data: unknown;
}

/** A reply's text in the pieces a model streams it in: a word and the space after it. */
export function streamPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * The Messages API's stream of a reply (`stream: true`): message_start (input tokens, output 1),
 * each content block as start, deltas and stop, message_delta (stop reason, output tokens so
 * far), message_stop; the same message `anthropicMessage` would send whole.
 */
export function anthropicStreamEvents(message: ReturnType<typeof anthropicMessage>): WireEvent[] {
  const { content, stop_reason, stop_sequence, usage, ...head } = message as any;
  const events: WireEvent[] = [
    { event: 'message_start', data: { type: 'message_start', message: { ...head, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } } },
    { event: 'ping', data: { type: 'ping' } },
  ];
  (content as any[]).forEach((block, index) => {
    const delta = (d: unknown) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
    if (block.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } } });
      streamPieces(block.text).forEach((text) => events.push(delta({ type: 'text_delta', text })));
    } else if (block.type === 'thinking') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } } });
      streamPieces(block.thinking).forEach((thinking) => events.push(delta({ type: 'thinking_delta', thinking })));
      events.push(delta({ type: 'signature_delta', signature: block.signature }));
    } else if (block.type === 'tool_use') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { ...block, input: {} } } });
      events.push(delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }));
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push(
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason, stop_sequence }, usage: { output_tokens: usage.output_tokens } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  );
  return events;
}

/**
 * Chat completions' stream of a reply: a first chunk with the role, one chunk per content piece,
 * one with the finish reason, then, when `stream_options.include_usage` asked for it, a chunk
 * without choices that carries the usage; then `[DONE]`.
 */
export function openAiStreamEvents(completion: ReturnType<typeof openAiChatCompletion>, includeUsage: boolean): WireEvent[] {
  const { choices, usage, object: _object, ...head } = completion;
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    data: { ...head, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] },
  });
  const message = choices[0].message;
  return [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...streamPieces(message.content ?? '').map((content) => chunk({ content })),
    ...(message.refusal ? [chunk({ refusal: message.refusal })] : []),
    chunk({}, choices[0].finish_reason),
    ...(includeUsage ? [{ data: { ...head, object: 'chat.completion.chunk', choices: [], usage } }] : []),
    { data: '[DONE]' },
  ];
}

/** An event as it goes on the wire. */
export function sseFrame(event: WireEvent): string {
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`;
}
