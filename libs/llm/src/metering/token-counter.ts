import { countTokens as countO200kTokens } from 'gpt-tokenizer';
import type { ChatMessage } from '../model.types';

/**
 * Counts tokens before a call, so that a caller can reserve the worst-case cost. It uses
 * OpenAI's o200k_base encoding (shipped inside gpt-tokenizer, no download). Other providers'
 * tokenizers differ (Claude's runs up to ~20% longer on English prose), so estimates for
 * them are scaled by a safety factor: a reservation must not fall short of the real cost.
 */
const SAFETY_FACTOR: Record<string, number> = { openai: 1.0, anthropic: 1.25, local: 1.0 };
// Per-message framing tokens the providers add around each message (role markers etc.).
const MESSAGE_OVERHEAD_TOKENS = 4;

// User text may contain strings like `<|endoftext|>`; they are counted as the text they are.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200kTokens(text, PLAIN_TEXT);
}

/** Upper estimate of the input tokens of a chat call to `provider`. */
export function estimateChatInputTokens(provider: string, system: string, messages: ChatMessage[]): number {
  const raw =
    countTokens(system) + messages.reduce((sum, m) => sum + countTokens(m.content) + MESSAGE_OVERHEAD_TOKENS, 0);
  return Math.ceil(raw * (SAFETY_FACTOR[provider] ?? 1.25)) + MESSAGE_OVERHEAD_TOKENS;
}

/** Upper estimate of the input tokens of an embeddings request. */
export function estimateEmbeddingTokens(provider: string, texts: string[]): number {
  return Math.ceil(texts.reduce((sum, t) => sum + countTokens(t), 0) * (SAFETY_FACTOR[provider] ?? 1.25));
}
