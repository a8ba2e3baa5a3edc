import { randomBytes } from 'crypto';
import { countTokens } from '@loci/llm';
import { chunkText, needsChunking, TextChunk } from './chunker';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// eslint-disable-next-line no-misleading-character-class -- each of these code points on its own is what is matched
const STARTS_INSIDE_CHARACTER = /^[\p{M}\u200d\ufe00-\ufe0f\u{1f3fb}-\u{1f3ff}]/u;

/** The invariants every chunking must keep, whatever the input. */
function expectSoundChunks(text: string, chunks: TextChunk[], maxTokens: number, { mayCutGraphemes = false } = {}): void {
  chunks.forEach((chunk, k) => {
    expect(chunk.index).toBe(k);
    expect(chunk.text).toBe(text.slice(chunk.startOffset, chunk.endOffset));
    expect(chunk.text.trim()).toBe(chunk.text);
    expect(chunk.text.length).toBeGreaterThan(0);
    expect(chunk.tokenCount).toBeLessThanOrEqual(maxTokens);
    expect(chunk.tokenCount).toBe(countTokens(chunk.text));
    expect(LONE_SURROGATE.test(chunk.text)).toBe(false);
    if (!mayCutGraphemes) expect(STARTS_INSIDE_CHARACTER.test(chunk.text)).toBe(false);
    expect(chunk.text.endsWith('\u200d')).toBe(false);
    if (k === 0) return;
    const previous = chunks[k - 1];
    expect(chunk.startOffset).toBeGreaterThan(previous.startOffset);
    expect(chunk.endOffset).toBeGreaterThan(previous.endOffset);
    // Coverage: nothing but whitespace may fall between two chunks.
    if (chunk.startOffset > previous.endOffset) {
      expect(text.slice(previous.endOffset, chunk.startOffset).trim()).toBe('');
    }
  });
  if (chunks.length > 0) {
    expect(text.slice(0, chunks[0].startOffset).trim()).toBe('');
    expect(text.slice(chunks[chunks.length - 1].endOffset).trim()).toBe('');
  }
}

/** Deterministic pseudo-random prose: numbered, so that every sentence is unique; a blank line every few sentences. */
function prose(chars: number, sentencesPerParagraph = 7): { text: string; sentences: string[] } {
  const vocabulary = (
    'the of and report meeting Acme Berlin moved quarterly revenue grew engineers shipped a new ' +
    'feature after customers asked for faster search while Dr. Chen reviewed budget in the U.S. office'
  ).split(' ');
  let seed = 42;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const sentences: string[] = [];
  let length = 0;
  for (let n = 0; length < chars; n++) {
    const words = Array.from({ length: 6 + Math.floor(random() * 30) }, () => vocabulary[Math.floor(random() * vocabulary.length)]);
    const end = ['.', '!', '?'][Math.floor(random() * 3)];
    const sentence = `Item ${n} says ${words.join(' ')}${end}`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  // Paragraph breaks every few sentences, as in a real document.
  const text = sentences.map((s, i) => (i % sentencesPerParagraph === sentencesPerParagraph - 1 ? `${s}\n\n` : `${s} `)).join('');
  return { text, sentences };
}

describe('chunkText', () => {
  it('returns no chunks for empty or whitespace-only text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('   \n\t\r\n \u00a0\u2028  ')).toEqual([]);
    expect(needsChunking('')).toBe(false);
    expect(needsChunking(' \n ')).toBe(false);
  });

  it('returns one chunk for one word, without the whitespace around it', () => {
    const text = '  \n Hello \n';
    expect(chunkText(text)).toEqual([
      { index: 0, text: 'Hello', tokenCount: countTokens('Hello'), startOffset: 4, endOffset: 9 },
    ]);
  });

  it('keeps a text of exactly maxTokens whole, and cuts one token more', () => {
    const maxTokens = 50;
    let text = 'alpha';
    while (countTokens(`${text} alpha`) <= maxTokens) text += ' alpha';
    expect(countTokens(text)).toBe(maxTokens);
    expect(needsChunking(text, maxTokens)).toBe(false);
    expect(chunkText(text, { maxTokens, overlapTokens: 10 })).toHaveLength(1);

    const over = `${text} alpha`;
    expect(needsChunking(over, maxTokens)).toBe(true);
    const chunks = chunkText(over, { maxTokens, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(1);
    expectSoundChunks(over, chunks, maxTokens);
  });

  it('cuts a long paragraph at sentence ends, with overlap, covering every sentence', () => {
    const { text, sentences } = prose(200_000, Infinity);
    const options = { maxTokens: 1200, overlapTokens: 100 };
    const chunks = chunkText(text, options);

    expect(chunks.length).toBeGreaterThan(30);
    expectSoundChunks(text, chunks, options.maxTokens);
    chunks.forEach((chunk, k) => {
      expect(chunk.text).toMatch(/^Item \d+ says/); // starts at a sentence (the overlap is whole sentences)
      expect(chunk.text).toMatch(/[.!?]$/); // ends at one
      if (k < chunks.length - 1) expect(chunk.tokenCount).toBeGreaterThan(options.maxTokens * 0.8); // packed
    });
    for (let k = 1; k < chunks.length; k++) {
      const overlap = chunks[k - 1].endOffset - chunks[k].startOffset;
      expect(overlap).toBeGreaterThan(0);
      expect(countTokens(text.slice(chunks[k].startOffset, chunks[k - 1].endOffset))).toBeLessThanOrEqual(options.overlapTokens);
    }
    // Every sentence is whole in at least one chunk (the "U.S." and "Dr." inside do not cut them).
    let k = 0;
    for (const sentence of sentences) {
      while (k < chunks.length && !chunks[k].text.includes(sentence)) k++;
      expect(k).toBeLessThan(chunks.length);
    }
    expect(chunkText(text, options)).toEqual(chunks); // deterministic
  });

  it('keeps list markers, headings and line breaks as they are', () => {
    const text = '# Notes\n\n- Bob moved to Paris\n- Carol lives in Rome\n1. First item\n\n' + 'Alice works at Acme. '.repeat(60);
    const chunks = chunkText(text, { maxTokens: 40, overlapTokens: 8 });
    expectSoundChunks(text, chunks, 40);
    expect(chunks[0].text.startsWith('# Notes\n\n- Bob moved to Paris\n- Carol')).toBe(true);
  });

  it('cuts a sentence longer than a chunk at spaces, overlapping by trailing words', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const chunks = chunkText(text, { maxTokens: 200, overlapTokens: 20 });
    expect(chunks.length).toBeGreaterThan(10);
    expectSoundChunks(text, chunks, 200);
    for (const chunk of chunks) {
      expect(/\s/.test(text[chunk.startOffset - 1] ?? ' ')).toBe(true);
      expect(/\s/.test(text[chunk.endOffset] ?? ' ')).toBe(true);
    }
    for (let k = 1; k < chunks.length; k++) expect(chunks[k].startOffset).toBeLessThan(chunks[k - 1].endOffset);
  });

  it('cuts one gigantic word by tokens, losing nothing', () => {
    const blob = randomBytes(150_000).toString('base64');
    const alone = chunkText(blob, { maxTokens: 500, overlapTokens: 50 });
    expect(alone.length).toBeGreaterThan(100);
    expectSoundChunks(blob, alone, 500);
    // A word has no inner boundary to overlap at, so its pieces tile it exactly.
    expect(alone.map((c) => c.text).join('') === blob).toBe(true);

    const text = `Attachment follows.\n${blob}\nEnd of attachment.`;
    expectSoundChunks(text, chunkText(text, { maxTokens: 500, overlapTokens: 50 }), 500);
  });

  it('treats special-token strings as plain text', () => {
    const text = 'Some text <|endoftext|> and more. '.repeat(200);
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 10 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(100);
  });

  describe('unicode', () => {
    // Every row has all three values: jest takes a missing one for a `done` callback.
    const cases: Array<[string, string, { mayCutGraphemes?: boolean }]> = [
      ['CJK without spaces', '東京都は日本の首都であり、人口は約千四百万人です。大阪は西日本の経済の中心です'.repeat(300), {}],
      ['CJK without any punctuation', '漢字仮名交じり文字列検索試験'.repeat(600), {}],
      ['emoji sequences', '👨‍👩‍👧‍👦👍🏽🇩🇪🏳️‍🌈✋🏿'.repeat(400), {}],
      ['combining marks', 'e\u0301a\u0308o\u0302\u0323u\u0328'.repeat(3000), {}],
      // One "character" of 2000 combining marks cannot fit a chunk: it is cut between code points.
      ['zalgo', `Z${'\u0300\u0301\u0302\u0303\u0304'.repeat(400)}algo`, { mayCutGraphemes: true }],
      ['RTL', 'שלום עולם, זהו משפט בעברית. مرحبا بالعالم، هذه جملة عربية طويلة نسبيا. '.repeat(200), {}],
      ['astral letters', '𝒜𝒷𝒸𝒹 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 '.repeat(1000), {}],
    ];
    it.each(cases)('%s: never cuts inside a character and never loses one', (_name, text, expectations) => {
      const chunks = chunkText(text, { maxTokens: 120, overlapTokens: 20 });
      expect(chunks.length).toBeGreaterThan(1);
      expectSoundChunks(text, chunks, 120, expectations);
    });
  });

  it('keeps its invariants on arbitrary mixtures of text, whitespace and symbols', () => {
    const pieces = ['a', 'Word', ' ', '  ', '\n', '\n\n', '\f', '\v', '\t', '\r\n', '.', '!', '? ', '- ', '1. ', '# ', '"', '…',
      '\u00a0', '\u200b', '\ufeff', 'e\u0301', '東', '。', '👍🏽', '👨‍👩‍👧', '🇩🇪', 'ש', 'م', 'Dr.', 'U.S.', 'x'.repeat(40)];
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let n = 0; n < 150; n++) {
      const text = Array.from({ length: Math.floor(random() * 800) }, () => pieces[Math.floor(random() * pieces.length)]).join('');
      const maxTokens = 16 + Math.floor(random() * 60);
      const chunks = chunkText(text, { maxTokens, overlapTokens: Math.floor(random() * 40) });
      expectSoundChunks(text, chunks, maxTokens, { mayCutGraphemes: true });
    }
  });

  it('rejects nonsensical options and caps an overlap above half a chunk', () => {
    expect(() => chunkText('text', { maxTokens: 0 })).toThrow(RangeError);
    expect(() => chunkText('text', { maxTokens: 100.5 })).toThrow(RangeError);
    expect(() => chunkText('text', { overlapTokens: -1 })).toThrow(RangeError);
    const { text } = prose(5000);
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 1000 });
    expectSoundChunks(text, chunks, 100);
    for (let k = 1; k < chunks.length; k++) {
      expect(countTokens(text.slice(chunks[k].startOffset, chunks[k - 1].endOffset))).toBeLessThanOrEqual(50);
    }
  });

  it('does not overlap when overlapTokens is 0', () => {
    const { text } = prose(5000);
    const chunks = chunkText(text, { maxTokens: 100, overlapTokens: 0 });
    expectSoundChunks(text, chunks, 100);
    for (let k = 1; k < chunks.length; k++) expect(chunks[k].startOffset).toBeGreaterThan(chunks[k - 1].endOffset);
  });
});

/** The ranges of `parts` in `text`, found in order (each part occurs once, in order). */
function spans(text: string, parts: string[]): Array<{ start: number; end: number }> {
  let from = 0;
  return parts.map((part) => {
    const start = text.indexOf(part, from);
    expect(start).toBeGreaterThanOrEqual(0);
    from = start + part.length;
    return { start, end: from };
  });
}

/** Every chunk begins where one of the blocks begins and ends where one ends: no block is cut. */
function expectWholeBlocks(chunks: TextChunk[], blocks: Array<{ start: number; end: number }>): void {
  for (const chunk of chunks) {
    expect(blocks.map((b) => b.start)).toContain(chunk.startOffset);
    expect(blocks.map((b) => b.end)).toContain(chunk.endOffset);
  }
}

/** A sentence numbered `n`, about 12 tokens. */
const sentence = (n: number) => `Sentence ${n} tells that the quarterly report of Acme was reviewed.`;
const paragraph = (from: number, count: number) => Array.from({ length: count }, (_, k) => sentence(from + k)).join(' ');

describe('chunkText boundaries', () => {
  const maxTokens = 100;
  const options = { maxTokens, overlapTokens: 20 };

  // [name, the blocks (paragraphs or turns), how they are joined]
  const wholeBlockCases: Array<[string, string[], string]> = [
    ['paragraphs', [paragraph(0, 3), paragraph(10, 2), paragraph(20, 5), paragraph(30, 1), paragraph(40, 4), paragraph(50, 6)], '\n\n'],
    ['paragraphs with spaces and CRs on the blank lines', [paragraph(0, 2), paragraph(10, 3), paragraph(20, 4), paragraph(30, 2)], '\r\n \t\r\n'],
    ['plain speaker turns', ['Alice: ' + paragraph(0, 3), 'Bob: ' + paragraph(10, 4), 'Alice: ' + paragraph(20, 2), 'Bob: ' + paragraph(30, 5)], '\n'],
    ['time-stamped turns', ['[12:01] Alice: ' + paragraph(0, 3), '[12:02] Bob: ' + paragraph(10, 2), '[12:05] Alice: ' + paragraph(20, 5)], '\n'],
    ['user and assistant turns', ['User: ' + paragraph(0, 1), 'Assistant: ' + paragraph(10, 5), 'User: ' + paragraph(20, 3), 'Assistant: ' + paragraph(30, 2)], '\n'],
    ['clock times and titles', ['12:01 PM - Dr. Chen: ' + paragraph(0, 4), '12:03 PM - Mary Ann Lee: ' + paragraph(10, 2), '12:04 PM - Dr. Chen: ' + paragraph(20, 2)], '\n'],
    ['bold speakers', ['**Alice:** ' + paragraph(0, 4), '**Bob:** ' + paragraph(10, 2), '**Alice:** ' + paragraph(20, 1)], '\n'],
    // A turn of several lines and paragraphs is one block: the blank line inside it is no edge.
    ['turns with paragraphs inside', ['Alice: ' + paragraph(0, 2) + '\n\n' + paragraph(5, 2), 'Bob: ' + paragraph(10, 3), 'Alice: ' + paragraph(20, 1) + '\n' + paragraph(25, 2)], '\n'],
  ];
  it.each(wholeBlockCases)('%s: chunks are whole blocks, packed, without overlap', (_name, blocks, joiner) => {
    const text = blocks.join(joiner);
    for (const block of blocks) expect(countTokens(block)).toBeLessThanOrEqual(maxTokens);
    const chunks = chunkText(text, options);
    expectSoundChunks(text, chunks, maxTokens);
    const ranges = spans(text, blocks);
    expectWholeBlocks(chunks, ranges);
    expect(chunks.length).toBeLessThan(blocks.length); // small neighbours share a chunk
    for (let k = 1; k < chunks.length; k++) {
      expect(chunks[k].startOffset).toBeGreaterThan(chunks[k - 1].endOffset);
      // Packed: the next chunk's first block would not have fitted in this one.
      const next = ranges.find((b) => b.start === chunks[k].startOffset)!;
      expect(countTokens(text.slice(chunks[k - 1].startOffset, next.end))).toBeGreaterThan(maxTokens);
    }
  });

  // [name, blocks, joiner, index of the one block longer than a chunk]
  const longBlockCases: Array<[string, string[], string, number]> = [
    ['a long paragraph', [paragraph(0, 3), paragraph(10, 30), paragraph(50, 3)], '\n\n', 1],
    ['a long turn', ['Alice: ' + paragraph(0, 3), 'Bob: ' + paragraph(10, 30), 'Alice: ' + paragraph(50, 3)], '\n', 1],
    ['a long turn of paragraphs', ['User: ' + paragraph(0, 2), 'Assistant: ' + [paragraph(10, 5), paragraph(20, 5), paragraph(30, 5)].join('\n\n'), 'User: ' + paragraph(50, 2)], '\n', 1],
  ];
  it.each(longBlockCases)('%s: only the block longer than a chunk is cut, at sentence ends, overlapping inside it', (_name, blocks, joiner, long) => {
    const text = blocks.join(joiner);
    const chunks = chunkText(text, options);
    expectSoundChunks(text, chunks, maxTokens);
    const ranges = spans(text, blocks);
    const inside = (offset: number) => offset > ranges[long].start && offset < ranges[long].end;
    for (const chunk of chunks) {
      // Every chunk edge is a block edge, or lies inside the long block at a sentence's edge.
      if (!inside(chunk.startOffset)) expect(ranges.map((b) => b.start)).toContain(chunk.startOffset);
      else expect(chunk.text).toMatch(/^Sentence \d+/);
      if (!inside(chunk.endOffset)) expect(ranges.map((b) => b.end)).toContain(chunk.endOffset);
      else expect(chunk.text).toMatch(/\.$/);
    }
    expect(chunks.filter((c) => inside(c.startOffset)).length).toBeGreaterThan(1);
    for (let k = 1; k < chunks.length; k++) {
      const overlaps = chunks[k].startOffset < chunks[k - 1].endOffset;
      // Overlap only where a chunk begins inside the long block, never across a block edge.
      if (overlaps) expect(inside(chunks[k].startOffset)).toBe(true);
    }
  });

  it('cuts a turn of paragraphs at its paragraph edges before its sentences', () => {
    const parts = [paragraph(10, 5), paragraph(20, 5), paragraph(30, 5)];
    const text = ['User: hello', `Assistant: ${parts.join('\n\n')}`, 'User: thanks'].join('\n');
    const chunks = chunkText(text, options);
    expectSoundChunks(text, chunks, maxTokens);
    for (const part of parts) expect(chunks.some((c) => c.text.includes(part))).toBe(true);
    for (let k = 1; k < chunks.length; k++) expect(chunks[k].startOffset).toBeGreaterThan(chunks[k - 1].endOffset);
  });

  it('keeps a heading with the start of the long paragraph after it', () => {
    const text = `# Quarterly report\n\n${paragraph(0, 30)}`;
    const chunks = chunkText(text, options);
    expectSoundChunks(text, chunks, maxTokens);
    expect(chunks[0].text.startsWith('# Quarterly report\n\nSentence 0')).toBe(true);
  });

  it('takes one "Note:" line for a paragraph start, not for a conversation', () => {
    const blocks = [`Note: ${paragraph(0, 4)}`, paragraph(10, 4), paragraph(20, 4)];
    const text = blocks.join('\n\n');
    const chunks = chunkText(text, options);
    expectSoundChunks(text, chunks, maxTokens);
    expectWholeBlocks(chunks, spans(text, blocks));
  });
});
