import type { LlmSettings } from '@loci/config';
import { PriceTable } from '../metering/prices';
import { ModelRouter, parseModelSpec, UnknownModelError } from './model-router';

const settings = (overrides: Partial<LlmSettings> = {}): LlmSettings => ({
  anthropic: {},
  openai: { sendEmbeddingDimensions: true, reasoningEffort: false },
  stageModels: {},
  localEmbeddingDimensions: 1024,
  timeoutsMs: { chat: 1000, extract: 1000, embed: 1000 },
  maxRetries: 0,
  concurrency: 4,
  ...overrides,
});
const prices = PriceTable.load();

describe('ModelRouter', () => {
  it('serves every stage locally when no provider key is set', () => {
    const router = new ModelRouter(settings(), prices);
    expect(router.choose('extract').spec).toBe('local:local-nlp-v1');
    expect(router.choose('answer').spec).toBe('local:local-nlp-v1');
    expect(router.choose('embed').spec).toBe('local:local-hash-v1');
  });

  it('names the offline embedder by its width, so vectors of two widths are never compared', () => {
    const router = new ModelRouter(settings({ localEmbeddingDimensions: 256 }), prices);
    expect(router.choose('embed').spec).toBe('local:local-hash-v1-256d');
    const configured = new ModelRouter(settings({ localEmbeddingDimensions: 512, stageModels: { embed: 'local:local-hash-v1' } }), prices);
    expect(configured.choose('embed')).toEqual({ provider: 'local', model: 'local-hash-v1-512d', spec: 'local:local-hash-v1-512d' });
    expect(() => router.choose('embed', 'local:local-hash-v1-512d')).toThrow(/cannot serve the embed stage/);
  });

  it('offers the offline word-vector embedder for the embed stage only', () => {
    const router = new ModelRouter(settings({ stageModels: { embed: 'local:local-wordvec-v1' } }), prices);
    expect(router.choose('embed').spec).toBe('local:local-wordvec-v1');
    expect(() => router.choose('answer', 'local:local-wordvec-v1')).toThrow(UnknownModelError);
  });

  it('prefers Anthropic for chat and OpenAI for embeddings when their keys are set', () => {
    const router = new ModelRouter(settings({ anthropic: { apiKey: 'a' }, openai: { apiKey: 'o', sendEmbeddingDimensions: true, reasoningEffort: false } }), prices);
    expect(router.choose('query').spec).toBe('anthropic:claude-haiku-4-5');
    expect(router.choose('embed').spec).toBe('openai:text-embedding-3-small');
  });

  it('uses OpenAI-compatible chat when it is the only provider', () => {
    const router = new ModelRouter(settings({ openai: { apiKey: 'o', sendEmbeddingDimensions: true, reasoningEffort: false } }), prices);
    expect(router.choose('answer').spec).toBe('openai:gpt-4.1-mini');
  });

  it('honours a stage setting and a per-request override', () => {
    const router = new ModelRouter(
      settings({ anthropic: { apiKey: 'a' }, stageModels: { answer: 'anthropic:claude-sonnet-4-5' } }),
      prices,
    );
    expect(router.choose('answer').spec).toBe('anthropic:claude-sonnet-4-5');
    expect(router.choose('query', 'anthropic:claude-opus-4-1').model).toBe('claude-opus-4-1');
  });

  it('refuses at construction (boot) a configured model with no price', () => {
    expect(() => new ModelRouter(settings({ anthropic: { apiKey: 'a' }, stageModels: { extract: 'anthropic:claude-unknown' } }), prices)).toThrow(
      /claude-unknown.*no known price/,
    );
  });

  it('refuses a configured provider that has no key', () => {
    expect(() => new ModelRouter(settings({ stageModels: { answer: 'anthropic:claude-haiku-4-5' } }), prices)).toThrow(
      /not configured/,
    );
  });

  it('refuses models of the wrong kind for the stage', () => {
    const router = new ModelRouter(settings({ anthropic: { apiKey: 'a' } }), prices);
    expect(() => router.choose('embed', 'anthropic:claude-haiku-4-5')).toThrow(/cannot serve the embed stage/);
    expect(() => router.choose('answer', 'local:local-hash-v1')).toThrow(UnknownModelError);
    expect(() => router.choose('answer', 'local:anything')).toThrow(UnknownModelError);
  });

  it('parses provider:model names, keeping slashes and colons of the model', () => {
    expect(parseModelSpec('openai:deepseek/deepseek-chat')).toEqual({ provider: 'openai', model: 'deepseek/deepseek-chat', spec: 'openai:deepseek/deepseek-chat' });
    expect(parseModelSpec('openai:llama3:8b').model).toBe('llama3:8b');
    for (const bad of ['gpt-4', 'cohere:command', 'openai:', 'openai: spaced', `openai:${'x'.repeat(200)}`]) {
      expect(() => parseModelSpec(bad)).toThrow(UnknownModelError);
    }
  });
});
