/**
 * The model layer's vocabulary. Everything that talks to an LLM or an embedding model goes
 * through these interfaces, so that metering (prices, the inference ledger) and, later, cost
 * caps see every call.
 */

/** Pipeline stages that call a model. gb `remember`: extract, summarize; gb `query`: query, detect_geo. */
export const STAGES = ['extract', 'summarize', 'keywords', 'answer', 'query', 'detect_geo', 'embed'] as const;
export type Stage = (typeof STAGES)[number];

/** Reasoning (extended thinking) levels; `none` means no thinking tokens are paid for. */
export const REASONING_LEVELS = ['none', 'low', 'medium', 'high'] as const;
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

export type ProviderName = 'anthropic' | 'openai' | 'local';

export interface TokenUsage {
  inputTokens: number;
  /** All generated tokens, thinking included (as both providers report and bill them). */
  outputTokens: number;
  /** The part of `outputTokens` spent thinking, when the provider reports it. */
  thinkingTokens: number;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  stage: Stage;
  system: string;
  messages: ChatMessage[];
  maxOutputTokens: number;
  reasoning: ReasoningLevel;
  /** Ask for a JSON reply (providers use their JSON mode where they have one). */
  json: boolean;
  /**
   * The shape the JSON reply must have. Providers that can hold a model to a schema are given
   * it (Anthropic: a forced tool; OpenAI: `json_schema` response format); the reply's text is
   * then that JSON.
   */
  outputSchema?: OutputSchema;
  timeoutMs: number;
  /** Provider API key to use instead of the platform's (a tenant billed `own_key`). */
  apiKey?: string;
  /** Aborts the provider request (the client that asked went away). */
  signal?: AbortSignal;
}

/** Receives a streamed reply's text as it is written, piece by piece. */
export type TextSink = (text: string) => void;

/** A stage's reply shape as JSON Schema, with the name providers file it under. */
export interface OutputSchema {
  /** `[a-zA-Z0-9_-]{1,64}`: a tool name for Anthropic, a schema name for OpenAI. */
  name: string;
  description: string;
  /** A JSON Schema of type object. */
  schema: Record<string, unknown>;
}

/** Why generation stopped: `max_tokens` means the output was cut and must not be used. */
export type StopReason = 'end' | 'max_tokens' | 'refusal' | 'other';

export interface ChatCompletion {
  text: string;
  usage: TokenUsage;
  stopReason: StopReason;
  /** The model that answered, as the provider reports it. */
  model: string;
}

export interface ChatModel {
  readonly provider: ProviderName;
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /**
   * The same call streamed: `onText` gets the reply's text as the provider sends it, and the
   * completion (with the usage the stream reported) comes once it has ended. An aborted or
   * failed stream throws a ModelCallError carrying the usage seen so far.
   */
  stream(request: ChatRequest, onText: TextSink): Promise<ChatCompletion>;
}

export interface EmbeddingRequest {
  texts: string[];
  timeoutMs: number;
  apiKey?: string;
}

export interface EmbeddingResult {
  /** One vector per input text, in input order, each `dimensions` long. */
  vectors: number[][];
  usage: { inputTokens: number };
  model: string;
}

export interface Embedder {
  readonly provider: ProviderName;
  readonly model: string;
  readonly dimensions: number;
  embed(request: EmbeddingRequest): Promise<EmbeddingResult>;
}
