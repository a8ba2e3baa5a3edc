import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { costMicros, PriceTable } from './prices';

describe('prices', () => {
  const table = PriceTable.load();

  it('computes a cost to the micro-dollar', () => {
    // claude-haiku-4-5: $1 / $5 per 1M tokens → 1 µ$ per input token, 5 µ$ per output token.
    const price = table.priceOf('anthropic:claude-haiku-4-5')!;
    expect(costMicros(price, { inputTokens: 1234, outputTokens: 567, thinkingTokens: 0 })).toBe(1234 + 567 * 5);
    // thinking tokens are part of the output and are not charged twice
    expect(costMicros(price, { inputTokens: 0, outputTokens: 100, thinkingTokens: 100 })).toBe(500);
    expect(costMicros(price, { inputTokens: 0, outputTokens: 150, thinkingTokens: 100 })).toBe(750);
  });

  it('rounds up fractions of a micro-dollar, once, over the whole call', () => {
    // text-embedding-3-small: $0.02 / 1M → 0.02 µ$ per token: 1000 tokens = 20 µ$, 1 token = 1 µ$ (rounded up).
    const price = table.priceOf('openai:text-embedding-3-small')!;
    expect(costMicros(price, { inputTokens: 1000, outputTokens: 0, thinkingTokens: 0 })).toBe(20);
    expect(costMicros(price, { inputTokens: 1, outputTokens: 0, thinkingTokens: 0 })).toBe(1);
    expect(costMicros(price, { inputTokens: 0, outputTokens: 0, thinkingTokens: 0 })).toBe(0);
  });

  it('stays exact for very large token counts', () => {
    const price = table.priceOf('anthropic:claude-opus-4-1')!;
    expect(costMicros(price, { inputTokens: 2_000_000_000, outputTokens: 0, thinkingTokens: 0 })).toBe(30_000_000_000);
  });

  it('makes every local model free and leaves unknown models unpriced', () => {
    expect(costMicros(table.priceOf('local:local-extract')!, { inputTokens: 9999, outputTokens: 9999, thinkingTokens: 0 })).toBe(0);
    expect(table.priceOf('openai:some-unknown-model')).toBeUndefined();
    expect(table.has('anthropic:claude-haiku-4-5')).toBe(true);
  });

  it('lets an operator file override and extend prices', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loci-prices-')), 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        'anthropic:claude-haiku-4-5': { input: 2, output: 10, thinking: 1 },
        'openai:my-vllm-model': { input: 0.1, output: 0.1 },
      }),
    );
    const custom = PriceTable.load(file);
    expect(custom.priceOf('anthropic:claude-haiku-4-5')).toEqual({
      inputMicrosPerMTok: 2_000_000,
      outputMicrosPerMTok: 10_000_000,
      thinkingMicrosPerMTok: 1_000_000,
    });
    // 100 output tokens of which 40 thinking: 60 × 10 µ$ + 40 × 1 µ$
    expect(costMicros(custom.priceOf('anthropic:claude-haiku-4-5')!, { inputTokens: 0, outputTokens: 100, thinkingTokens: 40 })).toBe(640);
    expect(custom.has('openai:my-vllm-model')).toBe(true);
    expect(custom.has('openai:gpt-4.1-mini')).toBe(true); // defaults not named in the file stay
  });

  it('rejects a malformed price file, naming the entry', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'loci-prices-')), 'prices.json');
    writeFileSync(file, JSON.stringify({ 'claude-haiku': { input: 1, output: 2 } }));
    expect(() => PriceTable.load(file)).toThrow(/claude-haiku/);
    writeFileSync(file, JSON.stringify({ 'openai:x': { input: -1, output: 2 } }));
    expect(() => PriceTable.load(file)).toThrow(/openai:x\.input/);
  });
});
