import type { ChunkHit } from './retrieval.queries';

/**
 * Names and links between passages, on top of BM25: the two signals of a multi-hop question
 * that bag-of-words ranking cannot see.
 *
 * - A document whose name the question spells out ("Are Christopher Nolan and Sathish Kalathil
 *   both film directors?") is about what was asked: its chunks gain NAMED_DOCUMENT_BOOST of the
 *   best BM25 score, as a name field weighs more than body text in BM25F.
 * - A passage that names another document points to it, as a hyperlink does: the documents
 *   named by the best passages (the seeds) gain LINK_SHARE of their seed's relevance, so the
 *   bridge passage of a two-hop question ("…the woman who portrayed Corliss Archer…" → the film's
 *   passage names Shirley Temple → her passage) rises although it shares few words with the
 *   question. One hop, from the seeds only, so the spreading stays near the question.
 *
 * Relevance is BM25 over the best BM25 score of the question (so in [0, 1]) plus the boosts;
 * a passage BM25 did not find starts at 0. Measured on HotpotQA-100 (docs/QUALITY.md).
 */
export const NAMED_DOCUMENT_BOOST = 0.5;

/** What a linked passage inherits of its seed's relevance: the walk's damping (graph-walk.ts). */
export const LINK_SHARE = 0.5;

/** The links of this many of the best passages are followed. */
export const LINK_SEED_PASSAGES = 3;

/** A chunk with the relevance it is ranked by here. */
export interface RankedPassage {
  chunk: ChunkHit;
  relevance: number;
}

/**
 * BM25's chunks with the chunks of documents the question names raised by NAMED_DOCUMENT_BOOST,
 * best first. `namedDocuments` holds one chunk of each named document (its first), which joins
 * the list when BM25 found none of that document's chunks. Ties keep BM25's order.
 */
export function rankWithNamedDocuments(lexical: ChunkHit[], namedDocuments: ChunkHit[]): RankedPassage[] {
  const top = Math.max(0, ...lexical.map((c) => c.lexicalScore ?? 0));
  const named = new Set(namedDocuments.map((c) => c.documentId));
  const boost = (chunk: ChunkHit) => (named.has(chunk.documentId) ? NAMED_DOCUMENT_BOOST : 0);
  const ranked = lexical.map((chunk) => ({ chunk, relevance: (top > 0 ? (chunk.lexicalScore ?? 0) / top : 0) + boost(chunk) }));
  const foundDocuments = new Set(lexical.map((c) => c.documentId));
  for (const chunk of namedDocuments) {
    if (!foundDocuments.has(chunk.documentId)) ranked.push({ chunk, relevance: NAMED_DOCUMENT_BOOST });
  }
  return stableSort(ranked);
}

/** A passage naming a document (the walk's links: names a passage spells out matched to document name keys). */
export interface PassageLink {
  /** The naming passage. */
  fromChunkId: number;
  /** The named document. */
  toDocumentId: number;
}

/**
 * `ranked` after one hop of links: each document named by one of the first LINK_SEED_PASSAGES
 * passages gains LINK_SHARE of the best such seed's relevance, on its chunks in `ranked` or,
 * when it has none there, on its chunk in `linkedChunks` (which then joins). A seed's links to
 * its own document count for nothing. Best first; ties keep the order of `ranked`.
 */
export function spreadThroughLinks(ranked: RankedPassage[], links: PassageLink[], linkedChunks: Map<number, ChunkHit>): RankedPassage[] {
  const seeds = new Map(ranked.slice(0, LINK_SEED_PASSAGES).map((p) => [p.chunk.chunkId, p]));
  const gain = new Map<number, number>();
  for (const { fromChunkId, toDocumentId } of links) {
    const seed = seeds.get(fromChunkId);
    if (!seed || seed.chunk.documentId === toDocumentId) continue;
    gain.set(toDocumentId, Math.max(gain.get(toDocumentId) ?? 0, LINK_SHARE * seed.relevance));
  }
  if (gain.size === 0) return ranked;
  const spread = ranked.map((p) => ({ chunk: p.chunk, relevance: p.relevance + (gain.get(p.chunk.documentId) ?? 0) }));
  const present = new Set(ranked.map((p) => p.chunk.documentId));
  for (const [documentId, extra] of gain) {
    const chunk = linkedChunks.get(documentId);
    if (!present.has(documentId) && chunk) spread.push({ chunk, relevance: extra });
  }
  return stableSort(spread);
}

function stableSort(passages: RankedPassage[]): RankedPassage[] {
  return passages
    .map((p, order) => ({ p, order }))
    .sort((a, b) => b.p.relevance - a.p.relevance || a.order - b.order)
    .map(({ p }) => p);
}
