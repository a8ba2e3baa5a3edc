import { SQL, sql } from 'drizzle-orm';

/**
 * Loci's lexical analysis: PostgreSQL's `english` text search configuration (stemming and stop
 * words), the same on PostgreSQL and PGlite, for what is indexed and for what is asked. A
 * tenant's text in another language is still split into lexemes, unstemmed.
 */
export const TEXT_SEARCH_CONFIG = sql.raw(`'english'::regconfig`);

/**
 * What a chunk is indexed under: its text, led by its document's name when the document has one
 * a person chose (an uploaded document; a gb text's generated name says nothing). A passage
 * rarely repeats the title that says what it is about ("He was born in…"), so the name is
 * context the text needs, as in contextual chunk headers; a text that already opens with its
 * name is not given it twice.
 */
export function chunkLexicalText(document: { kind: string; name: string }, text: string): string {
  if (document.kind !== 'document' || text.trimStart().startsWith(document.name)) return text;
  return `${document.name}\n${text}`;
}

/** The lexemes of `text` with their frequencies (tsvector positions), one row each. */
export function lexemesOf(text: string | SQL): SQL {
  return sql`(SELECT t.lexeme, coalesce(array_length(t.positions, 1), 1) AS frequency
    FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, ${text})) AS t)`;
}

/**
 * Indexes stored chunks lexically in one statement (their chunk_terms postings and term_count),
 * from their text and their document's name as chunkLexicalText puts them together: for loaders
 * that write chunks in bulk (the benchmark seeder) rather than through insertChunk.
 */
export function indexStoredChunksSql(tenantId: string, chunkIds: number[]): SQL {
  const ids = `{${chunkIds.map((id) => Math.trunc(id)).join(',')}}`;
  return sql`WITH lexical AS (
      SELECT c.tenant_id, c.graph_id, c.id AS chunk_id,
             CASE WHEN d.kind = 'document' AND NOT starts_with(ltrim(c.text), d.name) THEN d.name || E'\\n' ELSE '' END
               || c.text AS text
      FROM chunks c JOIN documents d ON d.tenant_id = c.tenant_id AND d.id = c.document_id
      WHERE c.tenant_id = ${tenantId} AND c.id = ANY(${ids}::bigint[])),
    terms AS (
      SELECT l.tenant_id, l.graph_id, l.chunk_id, t.lexeme, t.frequency
      FROM lexical l CROSS JOIN LATERAL ${lexemesOf(sql`l.text`)} AS t),
    lengths AS (
      SELECT chunk_id, sum(frequency)::integer AS term_count FROM terms GROUP BY chunk_id),
    counted AS (
      UPDATE chunks c SET term_count = lengths.term_count FROM lengths
      WHERE c.tenant_id = ${tenantId} AND c.id = lengths.chunk_id)
    INSERT INTO chunk_terms (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
    SELECT terms.tenant_id, terms.graph_id, terms.lexeme, terms.chunk_id, terms.frequency, lengths.term_count
    FROM terms JOIN lengths ON lengths.chunk_id = terms.chunk_id`;
}
