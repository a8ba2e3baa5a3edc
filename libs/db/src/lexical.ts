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
 * context the text needs, as in contextual chunk headers.
 */
export function chunkLexicalText(document: { kind: string; name: string }, text: string): string {
  return document.kind === 'document' ? `${document.name}\n${text}` : text;
}

/** The lexemes of `text` with their frequencies (tsvector positions), one row each. */
export function lexemesOf(text: string | SQL): SQL {
  return sql`(SELECT t.lexeme, coalesce(array_length(t.positions, 1), 1) AS frequency
    FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, ${text})) AS t)`;
}
