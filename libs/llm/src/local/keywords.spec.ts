import { keywordsLocally } from './keywords';

describe('keywordsLocally', () => {
  it('takes names as low-level and the theme of the verb as high-level keywords', () => {
    expect(keywordsLocally('Where does Alice work?')).toEqual({ high_level: ['employment', 'work', 'location'], low_level: ['Alice'] });
  });

  it('keeps multi-word names and dates whole', () => {
    const k = keywordsLocally('When did Bob Smith move to New York in 2023?');
    expect(k.low_level).toEqual(expect.arrayContaining(['Bob Smith', 'New York', '2023']));
    expect(k.high_level).toEqual(expect.arrayContaining(['relocation', 'move', 'time']));
  });

  it('takes noun phrases without articles or possessives', () => {
    const k = keywordsLocally("Tell me about Alice's new job at Google.");
    expect(k.low_level).toEqual(['Alice', 'Google', 'new job']);
    expect(k.high_level).toEqual(['employment', 'job']);
  });

  it('takes compounds and head nouns as themes', () => {
    const k = keywordsLocally('What are the effects of climate change on agriculture?');
    expect(k.low_level).toEqual(['effects', 'climate change', 'agriculture']);
    expect(k.high_level).toEqual(['effect', 'climate change', 'agriculture']);
  });

  it('drops stopwords, pronouns and duplicates, whatever the case', () => {
    const k = keywordsLocally('Which companies did Microsoft acquire, and did MICROSOFT acquire GitHub?');
    expect(k.low_level.filter((w) => w.toLowerCase() === 'microsoft')).toHaveLength(1);
    for (const list of [k.low_level, k.high_level]) {
      const lower = list.map((w) => w.toLowerCase());
      expect(new Set(lower).size).toBe(lower.length);
      for (const stop of ['which', 'did', 'and', 'the', 'me', 'you']) expect(lower).not.toContain(stop);
    }
    expect(k.high_level).toEqual(expect.arrayContaining(['acquisition', 'acquire', 'company']));
  });

  it('returns empty lists for an empty or contentless question', () => {
    expect(keywordsLocally('')).toEqual({ high_level: [], low_level: [] });
    expect(keywordsLocally('   ')).toEqual({ high_level: [], low_level: [] });
    expect(keywordsLocally('what do you know?')).toEqual({ high_level: [], low_level: [] });
  });

  it('is deterministic', () => {
    const q = 'Does Alice Johnson still live in Berlin?';
    expect(keywordsLocally(q)).toEqual(keywordsLocally(q));
    expect(keywordsLocally(q)).toEqual({ high_level: ['residence', 'live'], low_level: ['Alice Johnson', 'Berlin'] });
  });
});
