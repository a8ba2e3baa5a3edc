import { countTokens as countO200kTokens } from 'gpt-tokenizer';
import { countTokens, estimateChatInputTokens, estimateEmbeddingTokens, prefixWithinTokens } from './token-counter';

describe('token counter', () => {
  it('counts tokens offline with a real BPE encoding', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('hello')).toBe(1);
    const sentence = 'Alice Johnson works at Acme Corporation in Berlin.';
    expect(countTokens(sentence)).toBeGreaterThan(5);
    expect(countTokens(sentence)).toBeLessThan(sentence.length);
    expect(countTokens(sentence.repeat(10))).toBeGreaterThan(countTokens(sentence) * 9);
  });

  it('counts long runs of one kind of character in linear time, never below the exact count', () => {
    const prose = 'Alice Johnson works at Acme Corporation in Berlin. '.repeat(200);
    expect(countTokens(prose)).toBe(countO200kTokens(prose));
    for (const run of [' ', 'a', '\n', '😀']) {
      const sample = `Where does Alice work?${run.repeat(3000)}`;
      expect(countTokens(sample)).toBeGreaterThanOrEqual(countO200kTokens(sample));
      const started = performance.now();
      countTokens(run.repeat(64 * 1024)); // unsplit: seconds
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it('counts special-token strings in user text as plain text instead of throwing', () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('estimates chat input with message overhead, and more generously for Anthropic', () => {
    const messages = [{ role: 'user' as const, content: 'Where does Alice work?' }];
    const openai = estimateChatInputTokens('openai', 'Answer from the graph.', messages);
    expect(openai).toBeGreaterThanOrEqual(countTokens('Answer from the graph.') + countTokens('Where does Alice work?'));
    expect(estimateChatInputTokens('anthropic', 'Answer from the graph.', messages)).toBeGreaterThan(openai);
  });

  it('estimates embedding input over a batch', () => {
    expect(estimateEmbeddingTokens('openai', ['one two', 'three'])).toBe(countTokens('one two') + countTokens('three'));
  });

  it('finds the prefix within a token limit, whole characters only, long runs included', () => {
    const prose = 'Alice Johnson works at Acme Corporation in Berlin. '.repeat(20);
    expect(prefixWithinTokens(prose, 1_000)).toBe(prose);
    expect(prefixWithinTokens(prose, 0)).toBe('');
    const ten = prefixWithinTokens(prose, 10);
    expect(countTokens(ten)).toBe(10);
    expect(prose.startsWith(ten)).toBe(true);
    for (const sample of ['😀'.repeat(400), `${' '.repeat(600)}Alice`, `Alice ${'x'.repeat(900)} Acme`, '東京'.repeat(300)]) {
      for (const limit of [1, 7, 100]) {
        const prefix = prefixWithinTokens(sample, limit);
        expect(sample.startsWith(prefix)).toBe(true);
        expect(countTokens(prefix)).toBeLessThanOrEqual(limit);
        // Not cut short: a limit's worth of these is at least a few characters.
        expect(prefix.length).toBeGreaterThanOrEqual(limit);
        expect(/[\uD800-\uDBFF]$/.test(prefix)).toBe(false);
      }
    }
  });
});
