import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countTokens } from '@loci/llm';
import { BundleDocument, bundlePassages, contextTitles, heldChunk, locateChunk, passagesHeld, titlesWithinChunks, titlesWithinTokens } from '../../eval/src/bundles';
import { loadEvalSet } from '../../eval/src/corpus';
import { scoredPrefix } from '../../eval/src/hotpotqa-bundles';
import { main } from '../../eval/src/run';
import { describeWithEvalSet, evalCorpusFolder as corpusFolder } from '../support/eval-set';

/**
 * The multi-passage variant of the eval (`npm run eval -- hotpotqa --docs-of N`, issue 14.5):
 * its definitions without a store, then a small run on the embedded store. Never the quality
 * numbers.
 */

const passages = [
  { title: 'Alpha', text: 'Alpha is a river in the north. It floods every spring.' },
  { title: 'Beta', text: 'Beta is a town on the Alpha. Its mayor is Carol.' },
  { title: 'Gamma', text: 'Gamma is a mountain.' },
  { title: 'Delta', text: 'Delta is a lake fed by the Alpha.' },
  { title: 'Epsilon', text: 'Epsilon is a village.' },
];

describe('eval --docs-of definitions (no store)', () => {
  it('puts every passage once in a document, in a seeded order, each at its exact span', () => {
    const documents = bundlePassages(passages, 2);
    expect(documents.map((d) => d.passages.length)).toEqual([2, 2, 1]);
    expect(bundlePassages(passages, 2)).toEqual(documents);
    expect(documents.flatMap((d) => d.passages.map((p) => p.title)).sort()).toEqual(passages.map((p) => p.title).sort());
    for (const d of documents) {
      expect(d.name).toMatch(/^bundle-\d{3}$/);
      for (const span of d.passages) {
        const passage = passages.find((p) => p.title === span.title)!;
        expect(d.text.slice(span.start, span.end)).toBe(`${passage.title}\n${passage.text}`);
      }
      // Passages are paragraphs: a blank line between two.
      for (let k = 1; k < d.passages.length; k++) expect(d.text.slice(d.passages[k - 1].end, d.passages[k].start)).toBe('\n\n');
    }
    // Not the corpus order: the order is shuffled (with this seed, for this list).
    expect(bundlePassages(passages, 5)[0].passages.map((p) => p.title)).not.toEqual(passages.map((p) => p.title));
  });

  const document: BundleDocument = bundlePassages(passages, 5)[0];
  const span = (title: string) => document.passages.find((p) => p.title === title)!;

  // [name, start, end, the passages held]
  const cases: Array<[string, (t: (title: string) => { start: number; end: number }) => [number, number], string[]]> = [
    ['one whole passage', (t) => [t('Alpha').start, t('Alpha').end], ['Alpha']],
    ['the whole document', () => [0, document.text.length], document.passages.map((p) => p.title)],
    ['a passage and the title line of the next', () => [document.passages[0].start, document.passages[1].start + document.passages[1].title.length], [document.passages[0].title]],
    ['most of a passage', (t) => [t('Beta').start, t('Beta').end - 5], ['Beta']],
    ['a few words of one passage', (t) => [t('Alpha').end - 10, t('Alpha').end], []],
  ];
  it.each(cases)('a span holds a passage when it holds at least half of its text: %s', (_name, range, held) => {
    const [start, end] = range(span);
    expect(passagesHeld(document, start, end).sort()).toEqual([...held].sort());
  });

  it('counts the chunks of a context together: two halves of a passage hold it', () => {
    const alpha = span('Alpha');
    const at = (share: number) => alpha.start + Math.round((alpha.end - alpha.start) * share);
    // Two chunks, each with 40% of the passage, overlapping a little: 75% of it together.
    const first = heldChunk(document, alpha.start, document.text.slice(alpha.start, at(0.4)));
    const second = heldChunk(document, at(0.35), document.text.slice(at(0.35), at(0.75)));
    expect(first.titles).toEqual([]);
    expect(second.titles).toEqual([]);
    expect(contextTitles([first])).toEqual([]);
    expect(contextTitles([first, second])).toEqual(['Alpha']);
    expect(titlesWithinChunks([first, second], 1)).toEqual([]);
    expect(titlesWithinChunks([first, second], 2)).toEqual(['Alpha']);
  });

  it('locates a returned chunk by its text, and fills a context budget as Loci does', () => {
    const alpha = span('Alpha');
    const located = locateChunk(document, document.text.slice(alpha.start, alpha.end))!;
    expect(located.titles).toEqual(['Alpha']);
    expect(locateChunk(document, 'text that is not in it')).toBeNull();
    expect(locateChunk(undefined, 'Alpha')).toBeNull();

    const whole = heldChunk(document, 0, document.text);
    const tokens = countTokens(document.text);
    expect(titlesWithinTokens([located, whole], 10_000)).toEqual(whole.titles);
    // The second chunk does not fit: below 64 tokens left it is dropped, not cut.
    expect(titlesWithinTokens([located, whole], countTokens(located.text) + tokens - 1)).toEqual(['Alpha']);
    expect(titlesWithinChunks([located, whole], 1)).toEqual(['Alpha']);
  });

  it('counts a chunk cut by the budget for the passages its prefix holds', () => {
    const long = bundlePassages(
      Array.from({ length: 6 }, (_, k) => ({ title: `P${k}`, text: `Passage ${k} says ${'something rather long and plain '.repeat(12)}.` })),
      6,
    )[0];
    const whole = heldChunk(long, 0, long.text);
    const perPassage = countTokens(long.text.slice(long.passages[0].start, long.passages[0].end));
    const held = titlesWithinTokens([whole], perPassage * 2 + 8);
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeLessThan(6);
    expect(long.passages.slice(0, held.length).map((p) => p.title)).toEqual(held);
  });

  it("keeps of a baseline's ranking the chunks its scores read: the largest k, or what fills the largest budget", () => {
    const chunks = document.passages.map((p) => heldChunk(document, p.start, document.text.slice(p.start, p.end)));
    const tokens = chunks.map((c) => countTokens(c.text));
    // A budget that ends inside the third chunk keeps it (it is cut to fit, and counted).
    const budget = tokens[0] + tokens[1] + 1;
    expect(scoredPrefix(chunks, { topK: [1], budgets: [5, budget] })).toEqual(chunks.slice(0, 3));
    expect(scoredPrefix(chunks, { topK: [1, 4], budgets: [budget] })).toEqual(chunks.slice(0, 4));
    expect(scoredPrefix(chunks, { topK: [2], budgets: [tokens[0] + tokens[1]] })).toEqual(chunks.slice(0, 2));
    expect(scoredPrefix(chunks, { topK: [10], budgets: [100_000] })).toEqual(chunks);
    for (const b of [5, budget, 100_000]) {
      expect(titlesWithinTokens(scoredPrefix(chunks, { topK: [1], budgets: [b] }), b)).toEqual(titlesWithinTokens(chunks, b));
    }
  });
});

describeWithEvalSet('npm run eval -- hotpotqa --docs-of 4 --limit 5 (embedded store)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loci-eval-docs-of-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ingests the sample as documents of 4 passages and scores every ranker at k chunks and at token budgets', async () => {
    const args = ['hotpotqa', '--docs-of', '4', '--limit', '5', '--distractors', '7', '--modes', 'naive,mix', '--budgets', '300,1000,3000'];
    const run = await main([...args, '--cache-dir', join(dir, 'cache'), '--out', join(dir, 'out')], () => undefined);
    expect(run.code).toBe(0);
    const report = run.bundles!;
    expect(JSON.parse(readFileSync(run.path!, 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));

    const sampled = 5 * 2 + 7; // gold passages of the first 5 questions (two each, distinct here) and 7 others
    expect(report.corpus).toMatchObject({ questions: 5, docs_of: 4, passages: sampled, documents: Math.ceil(sampled / 4) });
    expect(report.store.ingestion).toMatchObject({ documents: report.corpus.documents, failed: 0 });
    expect(report.store.ingestion.chunks).toBeGreaterThanOrEqual(report.corpus.documents);
    expect(report.rankers.map((r) => r.ranker)).toEqual(['naive', 'mix', 'bm25-chunks', 'bm25-passages']);
    for (const r of report.rankers) {
      const budgets = ['300', '1000', '3000'].map((t) => r.recall_at_tokens[t]);
      for (const value of [...budgets, ...Object.values(r.recall_at_chunks)]) expect(value >= 0 && value <= 1).toBe(true);
      // A larger budget holds everything a smaller one does.
      expect(budgets).toEqual([...budgets].sort((a, b) => a - b));
      expect(r.unlocated).toBe(0);
    }
    const ingested = new Set(loadEvalSet(corpusFolder).passages.map((p) => p.title));
    for (const q of report.questions) for (const c of q.chunks) for (const title of c.titles) expect(ingested.has(title)).toBe(true);
  }, 240_000);
});
