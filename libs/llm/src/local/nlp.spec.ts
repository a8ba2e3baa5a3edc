import { findDates, parseExplicitDate } from './dates';
import { parseText, verbForms, verbLemma } from './nlp';

describe('nlp helpers', () => {
  // verbLemma / verbForms use compromise's internal conjugation tables: pinned here so that a
  // library upgrade that moves them fails loudly instead of degrading every relation name.
  it('lemmatises verbs in context and conjugates infinitives', () => {
    const tokens = parseText('Alice founded Acme. Bob works there. Carol left. Dan studies law.').tokens;
    const lemma = (word: string) => verbLemma(tokens.find((t) => t.normal === word)!);
    expect(lemma('founded')).toBe('found');
    expect(lemma('works')).toBe('work');
    expect(lemma('left')).toBe('leave');
    expect(lemma('studies')).toBe('study');
    expect(verbForms('work')).toEqual({ present: 'works', past: 'worked' });
    expect(verbForms('leave')).toEqual({ present: 'leaves', past: 'left' });
    expect(verbForms('found').past).toBe('founded');
  });

  it('never tags a lowercase word as a name', () => {
    const work = parseText('Where does Alice work?').tokens.find((t) => t.normal === 'work')!;
    expect(work.tags.has('Person')).toBe(false);
    expect(work.tags.has('ProperNoun')).toBe(false);
  });

  it('reads a capitalized month after "in" as the month, and one after "&" as part of a name', () => {
    const reference = new Date('2025-06-15T00:00:00Z');
    const datesOf = (text: string) => findDates(parseText(text), reference).map((d) => parseText(text).tokens.slice(d.start, d.end).map((t) => t.text).join(' '));
    // ("closed in" is a phrasal verb to the tagger, which then read "May" as a name.)
    expect(datesOf('Acme closed in May.')).toEqual(['May']);
    expect(datesOf('Pia left Slaughter & May in April.')).toEqual(['in April']);
    expect(datesOf('May Chen may join Acme.')).toEqual([]);
  });

  it('parses the common explicit date forms to the start of their period', () => {
    expect(parseExplicitDate('2018')).toBe('2018-01-01T00:00:00.000Z');
    expect(parseExplicitDate('March 2023')).toBe('2023-03-01T00:00:00.000Z');
    expect(parseExplicitDate('Sept. 2020')).toBe('2020-09-01T00:00:00.000Z');
    expect(parseExplicitDate('12 January 2024')).toBe('2024-01-12T00:00:00.000Z');
    expect(parseExplicitDate('the 5th of May 1990')).toBe('1990-05-05T00:00:00.000Z');
    expect(parseExplicitDate('June 30, 2025')).toBe('2025-06-30T00:00:00.000Z');
    expect(parseExplicitDate('2022-05-05')).toBe('2022-05-05T00:00:00.000Z');
    expect(parseExplicitDate('February 30, 2024')).toBeNull();
    expect(parseExplicitDate('last year')).toBeNull();
  });
});
