import { chunkText, needsChunking } from './chunker';
import { measureTokens, tokensWithin } from './tokens';

// Generous: the quadratic check these replace took ~10 s for 100k unspaced characters and
// minutes for a megabyte; the linear one takes milliseconds.
const GENEROUS_MS = 15_000;

describe('tokensWithin', () => {
  it('agrees with measureTokens when the text fits, long runs included', () => {
    for (const text of [
      'Alice works at Acme since 2021.',
      `key=${'x9Zq'.repeat(400)} end`,
      `Where does Alice work?${' '.repeat(3000)}In Berlin.`,
      '東京'.repeat(700),
    ]) {
      const tokens = measureTokens(text);
      expect(tokensWithin(text, tokens)).toBe(tokens);
      expect(tokensWithin(text, tokens - 1)).toBe(false);
    }
  });

  it(
    'tells that a megabyte without spaces is over the limit without tokenizing it whole',
    () => {
      expect(tokensWithin('A'.repeat(1 << 20), 1200)).toBe(false);
      expect(needsChunking('A'.repeat(1 << 20), 1200)).toBe(true);
    },
    GENEROUS_MS,
  );

  it(
    'chunks 300k characters without spaces, every chunk within its budget',
    () => {
      const text = 'A'.repeat(300_000);
      const chunks = chunkText(text, { maxTokens: 1200, overlapTokens: 100 });
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.every((c) => c.tokenCount <= 1200)).toBe(true);
      expect(chunks[0].startOffset).toBe(0);
      expect(chunks[chunks.length - 1].endOffset).toBe(text.length);
    },
    GENEROUS_MS,
  );

  it.each([
    ['short conversation turns', 'A: ok\nB: fine\n'.repeat(25_000)],
    ['blank lines', '\n \n'.repeat(100_000)],
    ['one-word paragraphs', 'word\n\n'.repeat(50_000)],
    ['turn labels without spaces after them', `A: ${'x'.repeat(200_000)}\nB: y`],
  ])(
    'chunks 300k characters of %s, every chunk within its budget',
    (_name, text) => {
      const chunks = chunkText(text, { maxTokens: 1200, overlapTokens: 100 });
      expect(chunks.every((c) => c.tokenCount <= 1200)).toBe(true);
    },
    GENEROUS_MS,
  );
});
