import { summarizeLocally } from './summarizer';

const ARTICLE = [
  'Acme Corporation is a German manufacturer of industrial robots, founded in 1998 by Hans Weber in Berlin.',
  'The company employs 2,300 people across four factories.',
  'In 2021 Acme opened a research lab in Munich focused on machine learning for robot control.',
  'The lab is led by Dr. Emily Chen, who previously worked at Stanford University.',
  "Acme's robots are used by car makers such as Volkswagen and BMW.",
  'Revenue grew by 12 percent in 2023, driven by demand from electric vehicle plants.',
  'The company plans to expand into the United States in 2025.',
  'Weber stepped down as CEO in 2022 and was replaced by Maria Garcia.',
  "Garcia previously ran the company's Asian division.",
  'The headquarters remain in Berlin.',
].join(' ');

const sentencesOf = (text: string) => text.match(/[^.]+(?:\.|$)/g)!.map((s) => s.trim());

describe('summarizeLocally', () => {
  it('returns a short text as it is, whitespace normalised', () => {
    expect(summarizeLocally('  Alice works at Acme.\n\nShe lives in   Berlin. ')).toBe('Alice works at Acme. She lives in Berlin.');
  });

  it('keeps the most central sentences, verbatim and in their original order', () => {
    const summary = summarizeLocally(ARTICLE);
    const picked = sentencesOf(summary);
    expect(picked.length).toBeLessThanOrEqual(3);
    expect(summary.length).toBeLessThanOrEqual(600);
    expect(picked[0]).toBe('Acme Corporation is a German manufacturer of industrial robots, founded in 1998 by Hans Weber in Berlin.');
    const positions = picked.map((s) => ARTICLE.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('respects maxSentences and maxChars', () => {
    const one = summarizeLocally(ARTICLE, { maxSentences: 1 });
    expect(sentencesOf(one)).toHaveLength(1);
    const short = summarizeLocally(ARTICLE, { maxSentences: 5, maxChars: 250 });
    expect(short.length).toBeLessThanOrEqual(250);
    expect(short.length).toBeGreaterThan(0);
  });

  it('cuts at a word boundary when even one sentence is too long', () => {
    const tiny = summarizeLocally(ARTICLE, { maxSentences: 2, maxChars: 30 });
    expect(tiny.length).toBeLessThanOrEqual(30);
    expect(tiny.endsWith('…')).toBe(true);
    expect(ARTICLE).toContain(tiny.slice(0, -1));
  });

  it('skips a sentence that repeats one already chosen', () => {
    const text =
      'Acme builds industrial robots in Berlin. Acme builds industrial robots in Berlin! Revenue of Acme grew in 2023. ' +
      'Acme robots are sold in Europe. The weather was nice.';
    const summary = summarizeLocally(text, { maxSentences: 3 });
    expect(summary.match(/builds industrial robots/g)).toHaveLength(1);
  });

  it('returns an empty summary for empty text and is deterministic', () => {
    expect(summarizeLocally('')).toBe('');
    expect(summarizeLocally(ARTICLE)).toBe(summarizeLocally(ARTICLE));
  });
});
