import { MODEL_SPEC_PATTERN, type LlmSettings } from '@loci/config';
import type { ProviderName, Stage } from '../model.types';
import { STAGES } from '../model.types';
import { LOCAL_EMBEDDING_MODEL, LOCAL_TEXT_MODEL, LOCAL_WORD_VECTOR_MODEL, localEmbeddingModel } from '../local/models';
import type { PriceTable } from '../metering/prices';

export interface ModelChoice {
  provider: ProviderName;
  model: string;
  /** `provider:model`, the key of the price table and what the ledger records. */
  spec: string;
}

export class UnknownModelError extends Error {
  constructor(
    readonly spec: string,
    readonly reason: 'malformed' | 'unpriced' | 'no_provider' | 'wrong_kind',
    stage?: Stage,
  ) {
    super(
      reason === 'malformed'
        ? `malformed model name "${spec}" (expected provider:model)`
        : reason === 'unpriced'
          ? `model "${spec}" has no known price (add it to LOCI_PRICES_FILE)`
          : reason === 'wrong_kind'
            ? `model "${spec}" cannot serve the ${stage} stage`
            : `model "${spec}" needs a provider that is not configured`,
    );
    this.name = 'UnknownModelError';
  }
}

/** Default models by stage, for whichever provider keys are set. Local when none is. */
const DEFAULTS = {
  anthropic: 'anthropic:claude-haiku-4-5',
  openaiChat: 'openai:gpt-4.1-mini',
  openaiEmbed: 'openai:text-embedding-3-small',
  localChat: `local:${LOCAL_TEXT_MODEL}`,
  localEmbed: `local:${LOCAL_EMBEDDING_MODEL}`,
} as const;

/**
 * A model name as clients of the gb contract send it, with or without our `provider:` prefix:
 * `claude-…` names are Anthropic's, other bare names go to the OpenAI-compatible endpoint.
 */
export function qualifyModelName(name: string): string {
  if (/^(anthropic|openai|local):/.test(name)) return name;
  return /^claude-/.test(name) ? `anthropic:${name}` : `openai:${name}`;
}

export function parseModelSpec(spec: string): ModelChoice {
  if (!MODEL_SPEC_PATTERN.test(spec)) throw new UnknownModelError(spec, 'malformed');
  const separator = spec.indexOf(':');
  return { provider: spec.slice(0, separator) as ProviderName, model: spec.slice(separator + 1), spec };
}

/**
 * Decides which model serves each stage: a per-request override where a contract allows one,
 * else the stage's setting, else a default for the configured providers. Every model it can
 * return has a price: configured ones are checked at boot, overrides per request.
 */
export class ModelRouter {
  private readonly byStage: ReadonlyMap<Stage, ModelChoice>;

  constructor(
    private readonly settings: LlmSettings,
    private readonly prices: PriceTable,
  ) {
    this.byStage = new Map(STAGES.map((stage) => [stage, this.check(stage, this.configured(stage))]));
  }

  /** The model for `stage`; `override` is a request's `provider:model` (validated here). */
  choose(stage: Stage, override?: string): ModelChoice {
    return override ? this.check(stage, override) : this.byStage.get(stage)!;
  }

  /**
   * Throws UnknownModelError unless `spec` is well-formed, priced, of the right kind for the
   * stage (an embedding model for `embed`, a chat model otherwise) and its provider usable.
   */
  check(stage: Stage, spec: string): ModelChoice {
    const choice = this.localEmbedderAtItsWidth(stage, parseModelSpec(spec));
    if (!this.rightKind(stage, choice)) throw new UnknownModelError(spec, 'wrong_kind', stage);
    if (!this.prices.has(spec)) throw new UnknownModelError(spec, 'unpriced');
    if (!this.providerConfigured(choice.provider)) throw new UnknownModelError(spec, 'no_provider');
    return choice;
  }

  /**
   * `local:local-hash-v1` names the offline embedder at whatever width LOCI_LOCAL_EMBEDDING_DIM
   * sets; what rows record is its name at that width, so a changed width is a changed model.
   */
  private localEmbedderAtItsWidth(stage: Stage, choice: ModelChoice): ModelChoice {
    if (stage !== 'embed' || choice.provider !== 'local' || choice.model !== LOCAL_EMBEDDING_MODEL) return choice;
    const model = localEmbeddingModel(this.settings.localEmbeddingDimensions);
    return { provider: 'local', model, spec: `local:${model}` };
  }

  private rightKind(stage: Stage, choice: ModelChoice): boolean {
    if (choice.provider === 'local') {
      if (stage !== 'embed') return choice.model === LOCAL_TEXT_MODEL;
      return choice.model === localEmbeddingModel(this.settings.localEmbeddingDimensions) || choice.model === LOCAL_WORD_VECTOR_MODEL;
    }
    // Anthropic has no embeddings API; OpenAI-compatible names cannot be told apart here.
    return !(stage === 'embed' && choice.provider === 'anthropic');
  }

  private configured(stage: Stage): string {
    const explicit = this.settings.stageModels[stage];
    if (explicit) return explicit;
    const { anthropic, openai } = this.settings;
    if (stage === 'embed') return openai.apiKey ? DEFAULTS.openaiEmbed : DEFAULTS.localEmbed;
    if (anthropic.apiKey) return DEFAULTS.anthropic;
    if (openai.apiKey) return DEFAULTS.openaiChat;
    return DEFAULTS.localChat;
  }

  /**
   * A provider is usable with a platform key, or — for tenants on their own key — always; the
   * own-key case is checked when the call is made. Local needs nothing.
   */
  private providerConfigured(provider: ProviderName): boolean {
    if (provider === 'local') return true;
    if (provider === 'anthropic') return Boolean(this.settings.anthropic.apiKey || this.settings.anthropic.baseUrl);
    return Boolean(this.settings.openai.apiKey || this.settings.openai.baseUrl);
  }
}
