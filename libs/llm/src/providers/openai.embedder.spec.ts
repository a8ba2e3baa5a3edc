// The double is imported by path: `@loci/testing`'s index loads libraries above this one (quota), which load this lib.
import { embeddingFor, float32Base64, LlmDouble, startLlmDouble } from '../../../testing/src/llm-double';
import { ModelCallError } from '../model-call.error';
import type { EmbeddingRequest } from '../model.types';
import { decodeEmbedding, OpenAiEmbedder, OpenAiEmbedderOptions } from './openai.embedder';

const NATIVE_DIMENSIONS = 16;

let double: LlmDouble;
beforeAll(async () => {
  double = await startLlmDouble({ embeddingDimensions: NATIVE_DIMENSIONS });
});
afterAll(() => double.close());
beforeEach(() => double.reset());

const embedder = (options: Partial<OpenAiEmbedderOptions> = {}) =>
  new OpenAiEmbedder({
    model: 'text-embedding-3-small',
    dimensions: NATIVE_DIMENSIONS,
    apiKey: 'platform-key',
    baseURL: double.openaiBaseUrl,
    maxRetries: 2,
    ...options,
  });

const request = (texts: string[], overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({ texts, timeoutMs: 2_000, ...overrides });

async function modelCallError(promise: Promise<unknown>): Promise<ModelCallError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelCallError);
  return error as ModelCallError;
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);
const sent = () => double.openai.embeddings.requests.map((r) => r.body);

describe('OpenAiEmbedder through the double', () => {
  it('returns one vector per text in input order, with the usage and model', async () => {
    const result = await embedder().embed(request(['alpha', 'beta gamma']));

    expect(result).toEqual({
      vectors: [embeddingFor('alpha', NATIVE_DIMENSIONS), embeddingFor('beta gamma', NATIVE_DIMENSIONS)],
      usage: { inputTokens: 2 + 3 },
      model: 'text-embedding-3-small',
    });
    const [received] = double.openai.embeddings.requests;
    expect(received.path).toBe('/v1/embeddings');
    expect(received.headers.authorization).toBe('Bearer platform-key');
    expect(received.body).toEqual({ model: 'text-embedding-3-small', input: ['alpha', 'beta gamma'], encoding_format: 'base64' });
  });

  it('batches inputs into as few requests as batchSize allows, keeping order and summing usage', async () => {
    const inputs = texts(300);

    const result = await embedder({ batchSize: 128 }).embed(request(inputs));

    expect(sent().map((body) => body.input.length)).toEqual([128, 128, 44]);
    expect(result.vectors).toEqual(inputs.map((text) => embeddingFor(text, NATIVE_DIMENSIONS)));
    const perText = inputs.map((text) => Math.ceil(text.length / 4));
    expect(result.usage.inputTokens).toBe(perText.reduce((a, b) => a + b, 0));
  });

  it('orders vectors by index, not by the order the server lists them', async () => {
    double.openai.embeddings.reply({ reversed: true });

    const result = await embedder().embed(request(['first', 'second', 'third']));

    expect(result.vectors).toEqual(['first', 'second', 'third'].map((text) => embeddingFor(text, NATIVE_DIMENSIONS)));
  });

  it('sends dimensions only when told to, and gets vectors of that length', async () => {
    await embedder({ dimensions: NATIVE_DIMENSIONS }).embed(request(['a']));
    const shortened = await embedder({ dimensions: 8, sendDimensions: true }).embed(request(['a']));

    expect(sent()[0]).not.toHaveProperty('dimensions');
    expect(sent()[1].dimensions).toBe(8);
    expect(shortened.vectors[0]).toEqual(embeddingFor('a', 8));
  });

  it('decodes base64 and float replies to the same numbers', async () => {
    const fromBase64 = await embedder({ encodingFormat: 'base64' }).embed(request(['same text']));
    const fromFloats = await embedder({ encodingFormat: 'float' }).embed(request(['same text']));

    expect(sent().map((body) => body.encoding_format)).toEqual(['base64', 'float']);
    expect(fromBase64.vectors).toEqual(fromFloats.vectors);
    expect(fromBase64.vectors[0]).toEqual(embeddingFor('same text', NATIVE_DIMENSIONS));
  });

  it('zero-pads shorter vectors when told to, and fails them otherwise', async () => {
    const padded = await embedder({ dimensions: 24, padToDimensions: true }).embed(request(['a']));
    const error = await modelCallError(embedder({ dimensions: 24 }).embed(request(['a'])));

    expect(padded.vectors[0]).toEqual([...embeddingFor('a', NATIVE_DIMENSIONS), ...new Array(8).fill(0)]);
    expect(error).toMatchObject({ failure: 'bad_output', provider: 'openai', stage: 'embed' });
  });

  it('fails longer vectors as bad_output, padding or not', async () => {
    const error = await modelCallError(embedder({ dimensions: 8, padToDimensions: true }).embed(request(['a'])));

    expect(error.failure).toBe('bad_output');
  });

  it('fails a reply with fewer vectors than inputs as bad_output', async () => {
    double.openai.embeddings.reply({ vectors: [embeddingFor('only one', NATIVE_DIMENSIONS)] });

    expect((await modelCallError(embedder().embed(request(['a', 'b'])))).failure).toBe('bad_output');
  });

  it('sends nothing for no texts', async () => {
    const result = await embedder().embed(request([]));

    expect(result).toEqual({ vectors: [], usage: { inputTokens: 0 }, model: 'text-embedding-3-small' });
    expect(double.openai.embeddings.requests).toHaveLength(0);
  });

  it("puts a request's own API key on the wire, and fails as not_configured without any key", async () => {
    await embedder().embed(request(['a'], { apiKey: 'tenant-own-key' }));
    const error = await modelCallError(embedder({ apiKey: undefined }).embed(request(['a'])));

    expect(double.openai.embeddings.requests.map((r) => r.headers.authorization)).toEqual(['Bearer tenant-own-key']);
    expect(error.failure).toBe('not_configured');
  });
});

describe('OpenAiEmbedder retries (the SDK does them)', () => {
  it('retries a reset and a 429 within a batch, then carries on', async () => {
    double.openai.embeddings.queue({}, { reset: true }, { status: 429, retryAfterMs: 1 });

    const result = await embedder({ batchSize: 2 }).embed(request(texts(4)));

    expect(result.vectors).toEqual(texts(4).map((text) => embeddingFor(text, NATIVE_DIMENSIONS)));
    expect(double.openai.embeddings.requests).toHaveLength(4);
  });

  it('gives up after maxRetries with the status', async () => {
    double.openai.embeddings.reply({ status: 503, retryAfterMs: 1 });

    const error = await modelCallError(embedder({ maxRetries: 1 }).embed(request(['a'])));

    expect(error).toMatchObject({ failure: 'unavailable', status: 503, stage: 'embed' });
    expect(double.openai.embeddings.requests).toHaveLength(2);
  });

  it('does not retry a 400', async () => {
    double.openai.embeddings.reply({ status: 400 });

    const error = await modelCallError(embedder().embed(request(['a'])));

    expect(error).toMatchObject({ failure: 'rejected', status: 400 });
    expect(double.openai.embeddings.requests).toHaveLength(1);
  });

  it('times out when the reply is slower than the timeout', async () => {
    double.openai.embeddings.reply({ delayMs: 1_000 });

    const error = await modelCallError(embedder({ maxRetries: 0 }).embed(request(['a'], { timeoutMs: 100 })));

    expect(error.failure).toBe('timeout');
  });
});

describe('decodeEmbedding', () => {
  it('reads little-endian float32 base64 and plain number lists, and nothing else', () => {
    expect(decodeEmbedding(float32Base64([0.5, -1.25, 3]))).toEqual([0.5, -1.25, 3]);
    expect(decodeEmbedding([0.1, 0.2])).toEqual([0.1, 0.2]);
    expect(decodeEmbedding('AAA=')).toBeUndefined(); // 2 bytes: not whole float32s
    expect(decodeEmbedding(['0.1'])).toBeUndefined();
    expect(decodeEmbedding(null)).toBeUndefined();
  });
});
