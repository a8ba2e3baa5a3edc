import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { TokenUsage } from '../model.types';

/**
 * What a model costs, in integer micro-dollars per million tokens (so $1.00 / 1M tokens is
 * 1_000_000 here, i.e. one micro-dollar per token). Thinking tokens are billed as output by
 * both providers; they have their own rate only so an operator can say otherwise.
 */
export interface ModelPrice {
  inputMicrosPerMTok: number;
  outputMicrosPerMTok: number;
  thinkingMicrosPerMTok: number;
}

const usdPerMTok = (input: number, output: number): ModelPrice => ({
  inputMicrosPerMTok: Math.round(input * 1_000_000),
  outputMicrosPerMTok: Math.round(output * 1_000_000),
  thinkingMicrosPerMTok: Math.round(output * 1_000_000),
});

/**
 * Shipped prices (USD per 1M tokens, list prices) for the models the defaults name and a few
 * common alternatives. Operators override or extend them with LOCI_PRICES_FILE.
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = {
  'anthropic:claude-haiku-4-5': usdPerMTok(1, 5),
  'anthropic:claude-sonnet-4-5': usdPerMTok(3, 15),
  'anthropic:claude-opus-4-1': usdPerMTok(15, 75),
  'openai:gpt-4.1-mini': usdPerMTok(0.4, 1.6),
  'openai:gpt-4.1': usdPerMTok(2, 8),
  'openai:gpt-4o-mini': usdPerMTok(0.15, 0.6),
  'openai:deepseek/deepseek-chat': usdPerMTok(0.27, 1.1),
  'openai:deepseek/deepseek-chat-v3-0324': usdPerMTok(0.27, 1.1),
  'openai:text-embedding-3-small': usdPerMTok(0.02, 0),
  'openai:text-embedding-3-large': usdPerMTok(0.13, 0),
};

const priceFileSchema = z.record(
  z.string().regex(/^(anthropic|openai|local):.+$/, 'keys are provider:model'),
  z.strictObject({
    input: z.number().min(0).max(10_000),
    output: z.number().min(0).max(10_000),
    thinking: z.number().min(0).max(10_000).optional(),
  }),
);

export class PriceTable {
  private constructor(private readonly prices: ReadonlyMap<string, ModelPrice>) {}

  /** The shipped prices, overridden entry by entry by the operator's file when given. */
  static load(pricesFile?: string): PriceTable {
    const prices = new Map(Object.entries(DEFAULT_PRICES));
    if (pricesFile) {
      const parsed = priceFileSchema.safeParse(JSON.parse(readFileSync(pricesFile, 'utf8')));
      if (!parsed.success) {
        throw new Error(`LOCI_PRICES_FILE ${pricesFile}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      }
      for (const [model, usd] of Object.entries(parsed.data)) {
        const price = usdPerMTok(usd.input, usd.output);
        if (usd.thinking !== undefined) price.thinkingMicrosPerMTok = Math.round(usd.thinking * 1_000_000);
        prices.set(model, price);
      }
    }
    return new PriceTable(prices);
  }

  /** The price of `provider:model`; the offline local provider is always free. */
  priceOf(modelSpec: string): ModelPrice | undefined {
    if (modelSpec.startsWith('local:')) return { inputMicrosPerMTok: 0, outputMicrosPerMTok: 0, thinkingMicrosPerMTok: 0 };
    return this.prices.get(modelSpec);
  }

  has(modelSpec: string): boolean {
    return this.priceOf(modelSpec) !== undefined;
  }
}

/**
 * Cost of a call in integer micro-dollars, rounded up once over the sum (never down: the
 * platform must not under-count spend). Thinking tokens are part of the output tokens; they
 * are charged once, at the thinking rate.
 */
export function costMicros(price: ModelPrice, usage: TokenUsage): number {
  const thinking = Math.min(usage.thinkingTokens, usage.outputTokens);
  const numerator =
    BigInt(usage.inputTokens) * BigInt(price.inputMicrosPerMTok) +
    BigInt(usage.outputTokens - thinking) * BigInt(price.outputMicrosPerMTok) +
    BigInt(thinking) * BigInt(price.thinkingMicrosPerMTok);
  const million = 1_000_000n;
  return Number((numerator + million - 1n) / million);
}
