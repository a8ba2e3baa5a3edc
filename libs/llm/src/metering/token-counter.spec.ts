import { countTokens as countO200kTokens } from 'gpt-tokenizer';
import { countTokens, estimateChatInputTokens, estimateEmbeddingTokens } from './token-counter';

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
});
