import type OpenAI from 'openai';
import { ModelCallError } from '../model-call.error';
import type { Embedder, EmbeddingRequest, EmbeddingResult } from '../model.types';
import { OPENAI_ERRORS, openAiClient } from './openai.chat-model';
import { toModelCallError } from './sdk-errors';

export interface OpenAiEmbedderOptions {
  model: string;
  /** The length every returned vector has (the store's vector columns). */
  dimensions: number;
  apiKey?: string;
  /** Left out, the SDK reads `OPENAI_BASE_URL`. */
  baseURL?: string;
  maxRetries?: number;
  /** Inputs per request (OpenAI accepts up to 2048; local servers often want fewer). Default 128. */
  batchSize?: number;
  /** Send `dimensions` so the model shortens its vectors (OpenAI text-embedding-3; most others reject it). */
  sendDimensions?: boolean;
  /** Zero-pad vectors shorter than `dimensions` (cosine similarity is unchanged) instead of failing. */
  padToDimensions?: boolean;
  /**
   * `base64` (the SDK's default: a quarter of the bytes) or `float`. Either way both shapes are
   * accepted in the reply, because some compatible servers ignore the parameter.
   */
  encodingFormat?: 'base64' | 'float';
}

const STAGE = 'embed';

export class OpenAiEmbedder implements Embedder {
  readonly provider = 'openai' as const;
  readonly model: string;
  readonly dimensions: number;

  constructor(private readonly options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
  }

  async embed(request: EmbeddingRequest): Promise<EmbeddingResult> {
    const apiKey = request.apiKey ?? this.options.apiKey;
    if (!apiKey) throw this.error('not_configured', 'no API key (OPENAI_API_KEY)');
    const client = openAiClient(this.options.baseURL, apiKey);
    const batchSize = Math.max(1, this.options.batchSize ?? 128);

    const vectors: number[][] = [];
    let inputTokens = 0;
    let model = this.model;
    // One batch at a time: how hard a provider is pushed is the callers' concurrency to decide.
    for (let start = 0; start < request.texts.length; start += batchSize) {
      const batch = request.texts.slice(start, start + batchSize);
      const response = await this.request(client, batch, request.timeoutMs);
      vectors.push(...this.vectorsInOrder(response, batch.length));
      inputTokens += response.usage?.prompt_tokens ?? 0;
      model = response.model ?? model;
    }
    return { vectors, usage: { inputTokens }, model };
  }

  private async request(client: OpenAI, input: string[], timeoutMs: number): Promise<OpenAI.CreateEmbeddingResponse> {
    try {
      return await client.embeddings.create(
        {
          model: this.model,
          input,
          // Given explicitly, the SDK hands the reply over undecoded, and we decode either shape.
          encoding_format: this.options.encodingFormat ?? 'base64',
          ...(this.options.sendDimensions ? { dimensions: this.dimensions } : {}),
        },
        { timeout: timeoutMs, maxRetries: this.options.maxRetries ?? 2 },
      );
    } catch (error) {
      throw toModelCallError(error, OPENAI_ERRORS, { provider: this.provider, model: this.model, stage: STAGE });
    }
  }

  private vectorsInOrder(response: OpenAI.CreateEmbeddingResponse, expected: number): number[][] {
    const data = Array.isArray(response?.data) ? response.data : [];
    if (data.length !== expected) throw this.error('bad_output', `${data.length} embeddings for ${expected} inputs`);
    const vectors: number[][] = new Array(expected);
    for (const item of data) {
      if (!Number.isInteger(item.index) || item.index < 0 || item.index >= expected || vectors[item.index]) {
        throw this.error('bad_output', `embedding index ${item.index} is out of range or repeated`);
      }
      vectors[item.index] = this.fitted(decodeEmbedding(item.embedding));
    }
    return vectors;
  }

  private fitted(vector: number[] | undefined): number[] {
    if (!vector || vector.some((x) => !Number.isFinite(x))) throw this.error('bad_output', 'an embedding was not a list of numbers');
    if (vector.length === this.dimensions) return vector;
    if (vector.length < this.dimensions && this.options.padToDimensions) {
      return [...vector, ...new Array<number>(this.dimensions - vector.length).fill(0)];
    }
    throw this.error('bad_output', `an embedding has ${vector.length} dimensions, expected ${this.dimensions}`);
  }

  private error(failure: 'bad_output' | 'not_configured', why: string): ModelCallError {
    return new ModelCallError(failure, this.provider, this.model, STAGE, `openai ${this.model} (${STAGE}): ${why}`);
  }
}

/** An embedding as sent: a list of numbers, or base64 of little-endian float32s. */
export function decodeEmbedding(embedding: unknown): number[] | undefined {
  if (Array.isArray(embedding)) return embedding.every((x) => typeof x === 'number') ? embedding : undefined;
  if (typeof embedding !== 'string') return undefined;
  const bytes = Buffer.from(embedding, 'base64');
  if (bytes.length % 4 !== 0) return undefined;
  const vector = new Array<number>(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
