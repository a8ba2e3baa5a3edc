import type { LlmSettings } from '@loci/config';
import { EMBEDDING_DIMENSIONS } from '@loci/db';
import { LocalHashingEmbedder } from '../local/hashing.embedder';
import { LOCAL_WORD_VECTOR_MODEL } from '../local/models';
import { LocalWordVectorEmbedder } from '../local/word-vector.embedder';
import type { LocalTextWork } from '../local/local-text-work';
import type { ChatModel, Embedder } from '../model.types';
import { AnthropicChatModel } from '../providers/anthropic.chat-model';
import { OpenAiChatModel } from '../providers/openai.chat-model';
import { OpenAiEmbedder } from '../providers/openai.embedder';
import type { ModelChoice } from './model-router';

/**
 * Builds (once) the ChatModel or Embedder behind a model choice, configured from settings.
 * Per-call keys (a tenant's own) are passed with each request, so instances are shared.
 */
export class ProviderRegistry {
  private readonly chatModels = new Map<string, ChatModel>();
  private readonly embedders = new Map<string, Embedder>();

  constructor(
    private readonly settings: LlmSettings,
    /** Where the offline embedder's large batches run (LOCAL_TEXT_WORK), if not on the calling thread. */
    private readonly localWork?: Pick<LocalTextWork, 'hashEmbed'>,
  ) {}

  chatModel(choice: ModelChoice): ChatModel {
    let model = this.chatModels.get(choice.spec);
    if (!model) {
      model = this.buildChatModel(choice);
      this.chatModels.set(choice.spec, model);
    }
    return model;
  }

  embedder(choice: ModelChoice): Embedder {
    let embedder = this.embedders.get(choice.spec);
    if (!embedder) {
      embedder = this.buildEmbedder(choice);
      this.embedders.set(choice.spec, embedder);
    }
    return embedder;
  }

  private buildChatModel(choice: ModelChoice): ChatModel {
    const { anthropic, openai, maxRetries } = this.settings;
    switch (choice.provider) {
      case 'anthropic':
        return new AnthropicChatModel({ model: choice.model, apiKey: anthropic.apiKey, baseURL: anthropic.baseUrl, maxRetries });
      case 'openai':
        return new OpenAiChatModel({
          model: choice.model,
          apiKey: openai.apiKey,
          baseURL: openai.baseUrl,
          maxRetries,
          supportsReasoningEffort: openai.reasoningEffort,
        });
      case 'local':
        throw new Error(`local models are not chat models (${choice.spec}); the stage runner serves them`);
    }
  }

  private buildEmbedder(choice: ModelChoice): Embedder {
    const { openai, maxRetries, localEmbeddingDimensions } = this.settings;
    switch (choice.provider) {
      case 'openai':
        return new OpenAiEmbedder({
          model: choice.model,
          dimensions: EMBEDDING_DIMENSIONS,
          apiKey: openai.apiKey,
          baseURL: openai.baseUrl,
          maxRetries,
          sendDimensions: openai.sendEmbeddingDimensions,
          padToDimensions: true,
        });
      case 'local':
        return choice.model === LOCAL_WORD_VECTOR_MODEL
          ? new LocalWordVectorEmbedder()
          : new LocalHashingEmbedder(localEmbeddingDimensions, this.localWork);
      case 'anthropic':
        throw new Error(`Anthropic has no embeddings API (${choice.spec})`);
    }
  }
}
