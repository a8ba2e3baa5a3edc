import { chunkText } from './chunker';
import { SECTION_CHARS, sectionRanges } from './sections';

describe('sectionRanges', () => {
  it('covers the text in consecutive ranges within the bound, cut at blank lines, else line breaks, else spaces', () => {
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ${'word '.repeat(20)}`.trim()).join('\n\n');
    const sections = sectionRanges(paragraphs, 400);
    expect(sections[0].start).toBe(0);
    expect(sections.at(-1)!.end).toBe(paragraphs.length);
    sections.forEach((s, k) => {
      expect(s.end - s.start).toBeLessThanOrEqual(400);
      if (k > 0) expect(s.start).toBe(sections[k - 1].end);
      // Between the two line breaks of a blank line.
      if (k < sections.length - 1) expect(paragraphs.slice(s.end - 1, s.end + 1)).toBe('\n\n');
    });
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n');
    for (const s of sectionRanges(lines, 100).slice(0, -1)) expect(lines[s.end - 1]).toBe('\n');
    const sentences = 'One sentence here. Another one follows it! '.repeat(10);
    for (const s of sectionRanges(sentences, 100).slice(0, -1)) expect(sentences.slice(s.end - 2, s.end)).toMatch(/^[.!] $/);
    const words = 'word '.repeat(100);
    for (const s of sectionRanges(words, 42).slice(0, -1)) expect(words[s.end - 1]).toBe(' ');
    expect(sectionRanges('short', 100)).toEqual([{ start: 0, end: 5 }]);
  });

  it('lets chunkText cut a long text a section at a time, chunks indexed and placed in the whole text', () => {
    // The shape that ran a CPU thread out of memory: short lines and no blank line.
    const text = Array.from({ length: Math.ceil((SECTION_CHARS * 1.2) / 3) }, (_, i) => `l${i % 10}`).join('\n');
    const chunks = chunkText(text, { maxTokens: 300, overlapTokens: 25 });
    chunks.forEach((chunk, i) => {
      expect(chunk.index).toBe(i);
      expect(text.slice(chunk.startOffset, chunk.endOffset)).toBe(chunk.text);
      expect(chunk.tokenCount).toBeLessThanOrEqual(300);
    });
    expect(chunks.at(-1)!.endOffset).toBe(text.length);
  });
});
