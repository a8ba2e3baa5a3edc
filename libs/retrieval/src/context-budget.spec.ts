import { countTokens } from '@loci/llm';
import fc from 'fast-check';
import { applyBudgets, cutToTokens, fitChunks, renderEntity, renderRelation } from './context-budget';
import type { RetrievedChunk } from './retrieval.types';

const chunk = (chunkId: number, text: string): RetrievedChunk => ({
  chunkId,
  documentId: 1,
  documentName: 'd',
  documentDate: null,
  loadedAt: new Date(0),
  text,
  score: 1,
});

describe('context budget', () => {
  it('renders entities and relations as the model sees them', () => {
    expect(renderEntity({ name: 'Alice', type: 'person', description: 'Engineer' })).toBe('Alice (person): Engineer');
    expect(renderEntity({ name: 'Alice', type: null, description: null })).toBe('Alice: ');
    expect(
      renderRelation({
        source: 'Bob',
        relation: 'lives_in',
        target: 'Lisbon',
        description: 'Bob lived in Lisbon',
        validAt: new Date('2015-01-01'),
        invalidAt: new Date('2021-05-01'),
      }),
    ).toBe('Bob lives_in Lisbon: Bob lived in Lisbon [2015-01-01, 2021-05-01]');
  });

  it('drops the lowest-ranked items past a budget and says so', () => {
    const entities = [1, 2, 3].map((id) => ({ id, name: `Entity${id}`, type: null, description: 'x', score: 1 }));
    const budget = countTokens(renderEntity(entities[0])) * 2;
    const fitted = applyBudgets({ entities, relations: [], chunks: [] }, { entityTokens: budget, relationTokens: 0, chunkTokens: 0 });
    expect(fitted.entities.map((e) => e.id)).toEqual([1, 2]);
    expect(fitted.truncated).toBe(true);
  });

  it('fits every section within a total, scaled to its share, giving the chunks what the graph leaves', () => {
    const entities = [1, 2].map((id) => ({ id, name: `Entity${id}`, type: null, description: 'x', score: 1 }));
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = [chunk(1, text), chunk(2, text)];
    const budgets = { entityTokens: 2000, relationTokens: 3000, chunkTokens: 6000 };
    const fitted = applyBudgets({ entities, relations: [], chunks }, budgets, 1000);
    const entityTokens = fitted.entities.reduce((sum, e) => sum + countTokens(renderEntity(e)), 0);
    const chunkTokens = fitted.chunks.reduce((sum, c) => sum + countTokens(c.text), 0);
    expect(fitted.entities).toHaveLength(2);
    // No relations: their share (272 of 1,000) went to the chunks with what the entities left.
    expect(entityTokens + chunkTokens).toBeLessThanOrEqual(1000);
    expect(chunkTokens).toBeGreaterThan(1000 - entityTokens - 64);
    expect(fitted.truncated).toBe(true);
    // A total above the sections' budgets changes nothing.
    expect(applyBudgets({ entities, relations: [], chunks }, budgets, 50_000)).toEqual(applyBudgets({ entities, relations: [], chunks }, budgets));
  });

  it('is not truncated when everything fits', () => {
    expect(fitChunks([chunk(1, 'short text')], 100)).toEqual({ kept: [chunk(1, 'short text')], truncated: false });
  });

  it('cuts the first chunk that does not fit, at a word boundary, when enough budget is left', () => {
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const { kept, truncated } = fitChunks([chunk(1, long), chunk(2, 'next')], 100);
    expect(truncated).toBe(true);
    expect(kept).toHaveLength(1);
    expect(countTokens(kept[0].text)).toBeLessThanOrEqual(100);
    expect(long.startsWith(`${kept[0].text} `)).toBe(true);
  });

  it('counts a chunk by its stored token count when it has one, and a cut chunk afresh', () => {
    const stored = { ...chunk(1, 'short text'), tokenCount: 90 };
    expect(fitChunks([stored, chunk(2, 'more short text')], 100).kept.map((c) => c.chunkId)).toEqual([1, 2]);
    expect(fitChunks([stored, { ...chunk(2, 'more short text'), tokenCount: 11 }], 100)).toMatchObject({ truncated: true });
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const [cut] = fitChunks([{ ...chunk(3, long), tokenCount: countTokens(long) }], 100).kept;
    expect(cut.tokenCount).toBeUndefined();
    expect(countTokens(cut.text)).toBeLessThanOrEqual(100);
  });

  it('drops rather than cuts when too little budget is left', () => {
    const { kept } = fitChunks([chunk(1, 'a few words'), chunk(2, 'x '.repeat(500))], 20);
    expect(kept.map((c) => c.chunkId)).toEqual([1]);
  });

  it('cutToTokens leaves a text that fits untouched', () => {
    expect(cutToTokens('hello world', 10)).toBe('hello world');
  });

  it('cutToTokens cuts prose where a search over every prefix length would, and anything within the budget', () => {
    // The reference: the longest prefix counted within the budget, by binary search over its
    // length (what cutToTokens did before it counted once), then cut back to a word boundary.
    const byBinarySearch = (text: string, maxTokens: number): string => {
      if (countTokens(text) <= maxTokens) return text;
      let low = 0;
      let high = text.length;
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if (countTokens(text.slice(0, middle)) <= maxTokens) low = middle;
        else high = middle - 1;
      }
      const prefix = text.slice(0, low);
      const boundary = prefix.search(/\s\S*$/);
      return (boundary > 0 ? prefix.slice(0, boundary) : prefix).trimEnd();
    };
    const proseWord = fc.constantFrom('Alice', 'works', 'at', 'Acme', 'Corporation,', 'in', 'Berlin.', '1957', "O'Neil", 'São', 'Zürich', '東京', '😀', 'anti-establishment', '(1989)', '\n\n');
    const anyWord = fc.oneof(proseWord, fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('x'.repeat(300), ' '.repeat(260)));
    const textOf = (word: fc.Arbitrary<string>) => fc.array(word, { minLength: 1, maxLength: 120 }).map((words) => words.join(' '));
    // Prose cut at a word boundary: the same cut as the search. (Inside a first word the search
    // could stop short: "Alic" is two tokens where "Alice" is one.)
    fc.assert(
      fc.property(textOf(proseWord), fc.integer({ min: 1, max: 200 }), (sample, maxTokens) => {
        const reference = byBinarySearch(sample, maxTokens);
        if (/\s/.test(reference)) expect(cutToTokens(sample, maxTokens)).toBe(reference);
      }),
      { seed: 14, numRuns: 300 },
    );
    // Anything: a prefix within the budget, the search's cut wherever that ends at a word boundary.
    fc.assert(
      fc.property(textOf(anyWord), fc.integer({ min: 1, max: 200 }), (sample, maxTokens) => {
        const cut = cutToTokens(sample, maxTokens);
        expect(countTokens(cut)).toBeLessThanOrEqual(maxTokens);
        expect(sample.startsWith(cut)).toBe(true);
        const reference = byBinarySearch(sample, maxTokens);
        if (/\s/.test(reference)) expect(cut).toBe(reference);
      }),
      { seed: 14, numRuns: 300 },
    );
  });
});
