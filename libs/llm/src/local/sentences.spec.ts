import { cutAtWords, normalizeWhitespace, splitParagraphs, splitSentences, truncateText } from './sentences';

describe('sentences', () => {
  it('splits sentences without breaking at abbreviations', () => {
    expect(splitSentences('Dr. Emily Chen works at Stanford. She met Mr. Smith in the U.S. last year! Did she?')).toEqual([
      'Dr. Emily Chen works at Stanford.',
      'She met Mr. Smith in the U.S. last year!',
      'Did she?',
    ]);
  });

  it('joins wrapped lines and cuts at blank lines, list items and short lines', () => {
    const text =
      'Alice Johnson works at Acme Corporation in Berlin and she has been\nthere since 2021.\n\n' +
      'Notes\n- Bob moved to Paris\n- Carol lives in Rome\n1. First item';
    expect(splitParagraphs(text)).toEqual([
      'Alice Johnson works at Acme Corporation in Berlin and she has been there since 2021.',
      'Notes',
      'Bob moved to Paris',
      'Carol lives in Rome',
      'First item',
    ]);
  });

  it('cuts a very long sentence at word boundaries when asked', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const pieces = splitSentences(long, { maxChars: 100 });
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(100);
    expect(pieces.join(' ')).toBe(long);
    expect(cutAtWords('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });

  it('normalises whitespace and truncates with an ellipsis', () => {
    expect(normalizeWhitespace('  a \n\t b  ')).toBe('a b');
    expect(truncateText('Alice works at Acme Corporation in Berlin.', 20)).toBe('Alice works at Acme…');
    expect(truncateText('short', 20)).toBe('short');
  });

  it('returns nothing for empty text', () => {
    expect(splitSentences('')).toEqual([]);
    expect(splitSentences(' \n\n ')).toEqual([]);
  });
});
