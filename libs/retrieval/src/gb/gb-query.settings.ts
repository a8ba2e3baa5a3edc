/**
 * Every number of the gb query contract (`gb-query-contract.md`), as a setting whose default is
 * the contract's value: each field is the environment setting `LOCI_GB_` + its name in upper
 * snake case (`maxTerms` → `LOCI_GB_MAX_TERMS`), see `.env.example`. The service reads them
 * from the optional `GB_QUERY_SETTINGS` provider; tests may also adjust
 * `GbQueryService.settings` directly.
 */
export interface GbQuerySettings {
  /** Keyword terms kept from the question. */
  maxTerms: number;
  /** Terms shorter than this are dropped. */
  minTermLength: number;
  /** Score when the entity's whole normalized name appears in the question. */
  wholeNameScore: number;
  /** Score per term found in the entity's name. */
  termInNameScore: number;
  /** Score per term found in the entity's description. */
  termInDescriptionScore: number;
  /** Keyword seeds taken (ties → most recently updated). */
  keywordSeeds: number;
  /** Matches taken from each vector index. */
  similarEntities: number;
  similarEdges: number;
  similarChunks: number;
  similarSummaries: number;
  /** A vector match counts from this cosine similarity (inclusive). */
  minSimilarity: number;
  /** Seeds when nothing matched: the most recently updated entities. */
  fallbackSeeds: number;
  /** Live edges around the seeds (one hop, newest first). */
  maxExpandedEdges: number;
  /** Passages given with the chunk's text (and summary when found). */
  passagesWithText: number;
  /** Further passages given with their summary only. */
  passagesSummaryOnly: number;
  /** Output cap of the answer call. */
  maxOutputTokens: number;
  /**
   * Not the contract's: chunks taken from BM25 over the dataset's chunks (the chunk_terms
   * postings /v1/query ranks with), fused with the vector matches into the passages; 0 turns the
   * channel off (the contract's vector-only passages). See docs/decisions/0040-gb-query.md.
   */
  lexicalChunks: number;
}

export const DEFAULT_GB_QUERY_SETTINGS: Readonly<GbQuerySettings> = Object.freeze({
  maxTerms: 12,
  minTermLength: 2,
  wholeNameScore: 5,
  termInNameScore: 3,
  termInDescriptionScore: 1,
  keywordSeeds: 10,
  similarEntities: 10,
  similarEdges: 10,
  similarChunks: 5,
  similarSummaries: 5,
  minSimilarity: 0.75,
  fallbackSeeds: 25,
  maxExpandedEdges: 100,
  passagesWithText: 3,
  passagesSummaryOnly: 5,
  maxOutputTokens: 2048,
  lexicalChunks: 8,
});

/** Optional provider token: `Partial<GbQuerySettings>` overriding the defaults. */
export const GB_QUERY_SETTINGS = Symbol('GB_QUERY_SETTINGS');

/** The fixed answer when there is nothing in memory to answer from (no model call). */
export const GB_NO_INFORMATION_ANSWER = "I don't have any information in memory to answer that.";
