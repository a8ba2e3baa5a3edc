import type { ChunkHit } from './retrieval.queries';
import { LINK_SEED_PASSAGES, LINK_SHARE, NAMED_DOCUMENT_BOOST, rankWithNamedDocuments, spreadThroughLinks } from './passage-links';

const chunk = (id: number, lexicalScore?: number, documentId = id): ChunkHit => ({
  chunkId: id,
  documentId,
  documentName: `doc ${documentId}`,
  documentDate: null,
  loadedAt: new Date(0),
  text: `text ${id}`,
  score: 0,
  ...(lexicalScore === undefined ? {} : { lexicalScore }),
});

const ids = (ranked: Array<{ chunk: ChunkHit }>) => ranked.map((p) => p.chunk.chunkId);

describe('rankWithNamedDocuments', () => {
  it('keeps BM25 order, relevance relative to the best score, when the question names no document', () => {
    const ranked = rankWithNamedDocuments([chunk(1, 10), chunk(2, 5), chunk(3, 5)], []);
    expect(ids(ranked)).toEqual([1, 2, 3]);
    expect(ranked.map((p) => p.relevance)).toEqual([1, 0.5, 0.5]);
  });

  it('raises every chunk of a named document by the boost', () => {
    const ranked = rankWithNamedDocuments([chunk(1, 10), chunk(2, 8), chunk(3, 6, 30), chunk(4, 1, 30)], [chunk(3, undefined, 30)]);
    expect(ids(ranked)).toEqual([3, 1, 2, 4]);
    expect(ranked[0].relevance).toBeCloseTo(0.6 + NAMED_DOCUMENT_BOOST);
    expect(ranked[3].relevance).toBeCloseTo(0.1 + NAMED_DOCUMENT_BOOST);
  });

  it('adds a named document BM25 did not find, at the boost alone', () => {
    const ranked = rankWithNamedDocuments([chunk(1, 10), chunk(2, 2)], [chunk(9)]);
    expect(ids(ranked)).toEqual([1, 9, 2]);
    expect(ranked[1].relevance).toBe(NAMED_DOCUMENT_BOOST);
  });

  it('ranks the named documents alone when BM25 found nothing', () => {
    expect(ids(rankWithNamedDocuments([], [chunk(7), chunk(8)]))).toEqual([7, 8]);
  });
});

describe('spreadThroughLinks', () => {
  const ranked = rankWithNamedDocuments([chunk(1, 10), chunk(2, 9), chunk(3, 8), chunk(4, 7), chunk(5, 6), chunk(6, 2.5)], []);

  it('raises a document a seed passage names by a share of the seed relevance', () => {
    const spread = spreadThroughLinks(ranked, [{ fromChunkId: 1, toDocumentId: 6 }], new Map());
    expect(ids(spread)).toEqual([1, 2, 3, 6, 4, 5]);
    expect(spread[3].relevance).toBeCloseTo(0.25 + LINK_SHARE * 1);
  });

  it('follows the links of the first seeds only', () => {
    const beyond = ranked[LINK_SEED_PASSAGES].chunk.chunkId;
    expect(ids(spreadThroughLinks(ranked, [{ fromChunkId: beyond, toDocumentId: 6 }], new Map()))).toEqual(ids(ranked));
  });

  it('ignores a seed naming its own document', () => {
    expect(ids(spreadThroughLinks(ranked, [{ fromChunkId: 1, toDocumentId: 1 }], new Map()))).toEqual(ids(ranked));
  });

  it('takes the best seed for a document named by several, not their sum', () => {
    const spread = spreadThroughLinks(
      ranked,
      [
        { fromChunkId: 1, toDocumentId: 6 },
        { fromChunkId: 2, toDocumentId: 6 },
        { fromChunkId: 3, toDocumentId: 6 },
      ],
      new Map(),
    );
    expect(spread.find((p) => p.chunk.chunkId === 6)!.relevance).toBeCloseTo(0.25 + LINK_SHARE * 1);
  });

  it('brings in a linked document BM25 did not find through its stand-in chunk', () => {
    const spread = spreadThroughLinks(ranked, [{ fromChunkId: 2, toDocumentId: 40 }], new Map([[40, chunk(41, undefined, 40)]]));
    expect(ids(spread)).toEqual([1, 2, 3, 4, 5, 41, 6]);
    expect(spread[5].relevance).toBeCloseTo(LINK_SHARE * 0.9);
  });

  it('drops a link whose document has neither a ranked chunk nor a stand-in', () => {
    expect(ids(spreadThroughLinks(ranked, [{ fromChunkId: 1, toDocumentId: 99 }], new Map()))).toEqual(ids(ranked));
  });
});
