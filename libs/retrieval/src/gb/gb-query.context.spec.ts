import { keywordTerms } from './gb-keywords';
import { buildEvidence, GbContext, renderGbContext, selectPassages } from './gb-query.context';
import { GbEdge, GbEntity } from './gb-query.repository';
import { DEFAULT_GB_QUERY_SETTINGS } from './gb-query.settings';

const entity = (id: number, name: string, type: string | null = null, description: string | null = null): GbEntity => ({
  id,
  name,
  type,
  description,
  updatedAt: new Date(0),
  score: 0,
});
const edge = (id: number, sourceId: number, targetId: number, extra: Partial<GbEdge> = {}): GbEdge => ({
  id,
  sourceId,
  targetId,
  source: `E${sourceId}`,
  target: `E${targetId}`,
  relation: 'works_at',
  description: null,
  artifactId: null,
  validAt: null,
  invalidAt: null,
  createdAt: new Date(0),
  expiredAt: null,
  ...extra,
});

describe('gb query keyword terms', () => {
  it('lowercases, splits, drops short terms, stopwords and duplicates, keeps 12', () => {
    expect(keywordTerms('Where does Alice work? ALICE, a New York engineer!', DEFAULT_GB_QUERY_SETTINGS)).toEqual([
      'alice',
      'work',
      'new',
      'york',
      'engineer',
    ]);
    const many = Array.from({ length: 20 }, (_, i) => `term${i}`).join(' ');
    expect(keywordTerms(many, DEFAULT_GB_QUERY_SETTINGS)).toHaveLength(12);
  });
});

describe('gb query passages', () => {
  it('merges by chunk with the better score, 3 with text, then up to 5 found by summary', () => {
    const chunks = [
      { id: 1, score: 0.9 },
      { id: 2, score: 0.8 },
      { id: 3, score: 0.79 },
      { id: 4, score: 0.78 }, // only by text, past the best 3: left out
    ];
    const summaries = [
      { id: 2, score: 0.95 },
      { id: 5, score: 0.77 },
      { id: 6, score: 0.76 },
    ];
    expect(selectPassages(chunks, summaries, { withText: 3, summaryOnly: 5 })).toEqual([
      { id: 2, score: 0.95, withText: true, withSummary: true },
      { id: 1, score: 0.9, withText: true, withSummary: false },
      { id: 3, score: 0.79, withText: true, withSummary: false },
      { id: 5, score: 0.77, withText: false, withSummary: true },
      { id: 6, score: 0.76, withText: false, withSummary: true },
    ]);
  });

  const weights = { vector: 0.2, lexical: 1 };
  const lexical = (ids: number[], withSummary: number[] = ids) => ({
    matches: ids.map((id, i) => ({ id, score: 10 - i })),
    weights,
    hasSummary: (id: number) => withSummary.includes(id),
  });

  it('keeps the contract ranking as it is when BM25 found nothing (or the channel is off)', () => {
    const chunks = [{ id: 1, score: 0.9 }];
    const summaries = [{ id: 2, score: 0.8 }];
    const contract = selectPassages(chunks, summaries, { withText: 3, summaryOnly: 5 });
    expect(selectPassages(chunks, summaries, { withText: 3, summaryOnly: 5 }, lexical([]))).toEqual(contract);
  });

  it("fuses BM25's chunks with the vector matches by weighted reciprocal rank: BM25 leads under the hashing embedder's weights", () => {
    const picked = selectPassages([{ id: 1, score: 0.8 }], [], { withText: 3, summaryOnly: 5 }, lexical([7, 1, 8, 9, 10], [9]));
    // 1 is BM25's second and the vectors' first: 1/4 + 0.2/3, just under BM25's first alone (1/3).
    expect(picked.map((p) => [p.id, p.withText, p.withSummary])).toEqual([
      [7, true, false],
      [1, true, false],
      [8, true, false],
      // Past the best 3, a chunk BM25 found is given with its summary when it has one; 10 has none.
      [9, false, true],
    ]);
    expect(picked.map((p) => p.score)).toEqual([1 / 3, 1 / 4 + 0.2 / 3, 1 / 5, 1 / 6]);
  });

  it('gives a summary only when the summary index found it, among the best passages', () => {
    const picked = selectPassages([], [{ id: 4, score: 0.9 }], { withText: 1, summaryOnly: 1 }, lexical([5, 4]));
    expect(picked).toEqual([
      { id: 5, score: 1 / 3, withText: true, withSummary: false },
      { id: 4, score: 0.2 / 3 + 1 / 4, withText: false, withSummary: true },
    ]);
  });
});

describe('gb query render and evidence', () => {
  const context: GbContext = {
    entities: [entity(2, 'Acme', 'organization'), entity(1, 'Alice', 'person', 'engineer'), entity(3, 'Paris')],
    edges: [
      edge(1, 1, 2, {
        source: 'Alice',
        target: 'Acme',
        description: 'Alice works at Acme.',
        validAt: new Date('2023-01-01T00:00:00Z'),
        invalidAt: new Date('2024-03-01T00:00:00Z'),
      }),
      edge(4, 1, 3, { source: 'Alice', target: 'Paris', relation: 'lives_in' }),
    ],
    passages: [{ chunk: { id: 14, documentId: 12, index: 3, text: 'the chunk', summary: 'Alice joined Acme' }, score: 0.8, summary: 'Alice joined Acme', text: 'the chunk' }],
  };

  it('renders the contract format', () => {
    expect(renderGbContext(context)).toBe(
      [
        '<graph>',
        '[entity 2] Acme (organization)',
        '[entity 1] Alice (person): engineer',
        '[entity 3] Paris',
        '[edge 1] Alice(1) --works_at--> Acme(2): Alice works at Acme. [valid_at=2023-01-01T00:00:00Z, invalid_at=2024-03-01T00:00:00Z]',
        '[edge 4] Alice(1) --lives_in--> Paris(3)',
        '</graph>',
        '',
        '<passages>',
        '[passage 14] chunk 3 of text 12',
        'summary: Alice joined Acme',
        'text: the chunk',
        '</passages>',
      ].join('\n'),
    );
    expect(renderGbContext({ ...context, passages: [] })).not.toContain('<passages>');
  });

  it('drops unknown ids, collapses duplicates, adds endpoints of cited edges, orders by id', () => {
    const evidence = buildEvidence(context, { entities: [99, 2], edges: [4, 4, 77], passages: [14, 15] });
    expect(evidence.entities.map((e) => e.id)).toEqual([1, 2, 3]);
    expect(evidence.edges.map((e) => e.id)).toEqual([4]);
    expect(evidence.passages.map((p) => p.chunk.id)).toEqual([14]);
    expect(buildEvidence(context, { entities: [], edges: [], passages: [] })).toEqual({ entities: [], edges: [], passages: [] });
  });
});
