-- Each lexeme's postings in order of what they add to a chunk's BM25 score, so a question reads
-- only the best postings of a common word instead of all of them (chunkLexicalSearchSql,
-- docs/DECISIONS.md "BM25 reads each word's best postings"). The key orders by BM25's term
-- frequency part, f / (f + k1 (1 - b + b len / L)), with k1 = 1.2, b = 0.75 and a fixed reference
-- length L = 100 lexemes (1.2 x 0.25 = 0.3, 1.2 x 0.75 / 100 = 0.009): the order only, which moves
-- little with the graph's true mean length; scores are computed with the graph's own. chunk_id
-- makes the order total, so a cut at N postings is the same on every run. INCLUDE lets the
-- read be index-only. The expression must stay identical to the query's (BM25_IMPACT_ORDER).
-- The build locks chunk_terms against writes (not reads) for as long as it takes.
CREATE INDEX IF NOT EXISTS "chunk_terms_impact_idx" ON "chunk_terms" (
  "tenant_id", "graph_id", "lexeme",
  ("frequency"::float8 / ("frequency"::float8 + 0.3::float8 + 0.009::float8 * "chunk_length"::float8)) DESC,
  "chunk_id"
) INCLUDE ("frequency", "chunk_length");
