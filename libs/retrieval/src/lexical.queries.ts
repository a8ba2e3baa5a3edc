import { SQL, sql } from 'drizzle-orm';
import { TEXT_SEARCH_CONFIG } from '@loci/db';
import { bigintArray, edgeVisible, entityDescription, entityVisible, liveEdge, PROCESSED, recordedBy, Scope } from './visibility.sql';
import { entitySearchSql } from './retrieval.queries';
import { KnownFrequencies, NOTHING_KNOWN } from './lexeme-frequencies.memo';

/**
 * BM25 over a graph's chunks, from the chunk_terms postings (libs/db schema): Okapi BM25 with
 * Lucene's non-negative IDF, ln(1 + (N - df + 0.5) / (df + 0.5)), and the usual k1 and b.
 * PostgreSQL's own rankings (ts_rank, ts_rank_cd) have no IDF: on HotpotQA-100's passages they
 * found about a third of what BM25 over the same lexemes finds at rank 2.
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** A graph's chunk count and mean chunk length (lexemes): BM25's N and avgdl. */
export interface CorpusStats {
  chunks: number;
  meanLength: number;
}

/**
 * N and avgdl: given (remembered from an earlier question: they drift slowly) or counted over the
 * graph's chunks, which costs a scan of the graph's chunk rows.
 */
function corpusSql({ tenantId, graphId }: Scope, corpus?: CorpusStats): SQL {
  // Parameters, not literals: the statement's text stays the same as the graph grows, so it
  // stays one prepared statement (prepared-statements.ts in @loci/db).
  if (corpus) return sql`SELECT ${Number(corpus.chunks)}::float8 AS n, ${Math.max(1, Number(corpus.meanLength))}::float8 AS mean_length`;
  return sql`SELECT count(*)::float8 AS n, greatest(avg(c.term_count), 1)::float8 AS mean_length
      FROM chunks c WHERE c.tenant_id = ${tenantId} AND c.graph_id = ${graphId}`;
}

/** The constants as float literals (parameters would be typed by where they first appear). */
const float = (value: number) => sql.raw(`${Number(value)}::float8`);

/**
 * How many postings of one question word BM25 reads at most: its best ones by what they add to
 * a chunk's score (BM25_IMPACT_ORDER). A word in fewer chunks is read whole, so the ranking is
 * exact whenever every word of the question is; past that, a chunk outside a common word's best
 * postings loses that word's share, which a word in thousands of chunks keeps small (its IDF).
 * Bounds a question's cost by its words rather than by the graph (docs/decisions/0036-bm25-best-postings.md, "BM25
 * reads each word's best postings"; measured in docs/QUALITY.md).
 */
export const DEFAULT_BM25_POSTINGS_PER_TERM = 2000;

/**
 * Migration 0017's key order over a posting (alias `q`): BM25's term-frequency part at a fixed
 * reference length of 100 lexemes. It must stay the index's expression, token for token in
 * meaning, for the planner to read the index in this order.
 */
const BM25_IMPACT_ORDER = sql.raw(
  '(q.frequency::float8 / (q.frequency::float8 + 0.3::float8 + 0.009::float8 * q.chunk_length::float8)) DESC, q.chunk_id',
);

/**
 * The chunks of processed documents that best match `text` by BM25, best first, at most `k`.
 * One statement: the question's lexemes (the same analysis as at indexing), the graph's chunk
 * count and mean length, each lexeme's document frequency (given in `known` when remembered,
 * else counted over its key range of the primary key: tenant, graph, lexeme, index-only), then
 * each lexeme's best `postingsPerTerm` postings (migration 0017's index, index-only) scored as
 * they are read, and the chunks' sums; sorted first, then joined to chunk and document, so the
 * joins stop once `k` chunks of processed documents are found. Its cost grows with the
 * question's words and the cut, not with the graph. The counts are exact, and a remembered one
 * at most a minute old (lexeme-frequencies.memo.ts). Every row carries `learned`: what the
 * statement counted and analysed, for the memo.
 */
export function chunkLexicalSearchSql(
  scope: Scope,
  text: string,
  k: number,
  corpus?: CorpusStats,
  postingsPerTerm = DEFAULT_BM25_POSTINGS_PER_TERM,
  known: KnownFrequencies = NOTHING_KNOWN,
): SQL {
  const { tenantId, graphId } = scope;
  return sql`WITH asked AS MATERIALIZED (
      SELECT DISTINCT t.lexeme FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, ${text})) AS t),
    corpus AS MATERIALIZED (${corpusSql(scope, corpus)}),
    frequencies AS MATERIALIZED (
      SELECT a.lexeme, ${frequencySql(scope, known, 'q')} AS df,
             NOT (${JSON.stringify(known.frequencies)}::jsonb ? a.lexeme) AS counted
      FROM asked a),
    weights AS MATERIALIZED (
      SELECT f.lexeme, ln(1 + (greatest(corpus.n, f.df) - f.df + 0.5) / (f.df + 0.5)) AS idf
      FROM frequencies f CROSS JOIN corpus
      WHERE f.df > 0),
    learned AS MATERIALIZED (SELECT ${learnedSql(known)} AS learned),
    -- Per lexeme, the first postings of its range of migration 0017's index, best first; the
    -- LIMIT keeps it a loop, as OFFSET 0 did: pulled up into a join, the planner read the
    -- graph's every posting when its estimates were off (a table not yet analyzed).
    scored AS (
      SELECT p.chunk_id,
             sum(w.idf * p.frequency * ${float(BM25_K1 + 1)}
                 / (p.frequency + ${float(BM25_K1)} * (1 - ${float(BM25_B)} + ${float(BM25_B)} * p.chunk_length / corpus.mean_length))) AS score
      FROM weights w CROSS JOIN corpus CROSS JOIN LATERAL (
        SELECT q.chunk_id, q.frequency, q.chunk_length FROM chunk_terms q
        WHERE q.tenant_id = ${tenantId} AND q.graph_id = ${graphId} AND q.lexeme = w.lexeme
        ORDER BY ${BM25_IMPACT_ORDER}
        LIMIT ${sql.raw(String(postingsLimit(postingsPerTerm)))}) p
      GROUP BY p.chunk_id)
    SELECT c.id AS chunk_id, c.document_id, d.name AS document_name, d.document_date, d.loaded_at, c.text,
           c.token_count, s.score, corpus.n AS corpus_chunks, corpus.mean_length AS corpus_mean_length, learned.learned
    FROM (SELECT * FROM scored ORDER BY score DESC, chunk_id) s
    CROSS JOIN corpus CROSS JOIN learned
    JOIN chunks c ON c.tenant_id = ${tenantId} AND c.graph_id = ${graphId} AND c.id = s.chunk_id
    JOIN documents d ON d.tenant_id = ${tenantId} AND d.graph_id = ${graphId} AND d.id = c.document_id
    WHERE d.status = ${PROCESSED}${recordedBy(scope, 'c')}
    ORDER BY s.score DESC, s.chunk_id
    LIMIT ${k}`;
}

/**
 * The document frequency of `a.lexeme` in the graph: the one given in `known` (remembered from an
 * earlier question: lexeme-frequencies.memo.ts), else counted over its key range of the primary
 * key (tenant, graph, lexeme: index-only). COALESCE runs the count only when none is given.
 */
function frequencySql({ tenantId, graphId }: Scope, known: KnownFrequencies, alias: string): SQL {
  const q = sql.raw(alias);
  return sql`coalesce((${JSON.stringify(known.frequencies)}::jsonb ->> a.lexeme)::float8, (
        SELECT count(*)::float8 FROM chunk_terms ${q}
        WHERE ${q}.tenant_id = ${tenantId} AND ${q}.graph_id = ${graphId} AND ${q}.lexeme = a.lexeme))`;
}

/**
 * What a BM25 statement reports back for the memo, as one JSON value (every row carries it):
 * the frequencies it counted (`frequencies`: lexeme → df) and the lexemes of the words it was
 * asked to analyse (`words`: word → lexemes), both empty once the question's words are known.
 */
function learnedSql(known: KnownFrequencies): SQL {
  return sql`json_build_object(
        'frequencies', (SELECT coalesce(json_object_agg(f.lexeme, f.df), '{}') FROM frequencies f WHERE f.counted),
        'words', (SELECT coalesce(json_object_agg(w.word, (SELECT coalesce(array_agg(t.lexeme), '{}') FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, w.word)) AS t)), '{}')
                  FROM unnest(${`{${known.unmappedWords.map(arrayElement).join(',')}}`}::text[]) AS w(word)))`;
}

/** The cut as an integer literal (a parameter would hide it from the planner's row estimates). */
function postingsLimit(postingsPerTerm: number): number {
  if (!Number.isInteger(postingsPerTerm) || postingsPerTerm < 1) throw new RangeError(`postingsPerTerm must be a positive integer, got ${postingsPerTerm}`);
  return postingsPerTerm;
}

/** Visible entities of the graph whose normalised name is one of `names` (exact matches). */
export function entitiesNamedSql(scope: Scope, names: string[], limit = MAX_NAMED_ENTITIES): SQL {
  const { tenantId, graphId } = scope;
  return sql`SELECT e.id, e.name, e.normalized_name, e.type, ${entityDescription(scope, 'e')}, 1::float8 AS score
    FROM entities e
    WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId}
      AND e.normalized_name = ANY(${`{${names.map(arrayElement).join(',')}}`}::text[])
      AND ${entityVisible(scope, 'e')}
    ORDER BY length(e.normalized_name) DESC, e.id
    LIMIT ${limit}`;
}

/**
 * The local path's seed entities in one statement, one round trip: `part` 0 holds the entities
 * `names` names (entitiesNamedSql), 1 those nearest to `vector` (entitySearchSql), each part in
 * its own statement's order (`position`). The two are always awaited together.
 */
export function seedEntitiesSql(scope: Scope, names: string[], vector: number[], k: number): SQL {
  return sql`SELECT 0 AS part, row_number() OVER (ORDER BY length(n.normalized_name) DESC, n.id) AS position,
           n.id, n.name, n.type, n.description, n.score
    FROM (${entitiesNamedSql(scope, names)}) n
    UNION ALL
    SELECT 1, row_number() OVER (ORDER BY v.distance, v.id), v.id, v.name, v.type, v.description, v.score
    FROM (${entitySearchSql(scope, vector, k)}) v
    ORDER BY part, position`;
}

/**
 * The first chunk of each processed document of the graph whose name key (documentNameKey: the
 * name without a file extension or a trailing qualifier in parentheses) is one of `names`,
 * longest key first, at most `limit`: the documents a question names. Index reads only
 * (documents by name key, chunks by document and index). A key of stopwords alone ("a.txt",
 * "The") names nothing: every question spells it out.
 */
export function documentsNamedSql(scope: Scope, names: string[], limit = MAX_NAMED_DOCUMENTS): SQL {
  const { tenantId, graphId } = scope;
  return sql`SELECT c.id AS chunk_id, d.id AS document_id, d.name AS document_name, d.document_date, d.loaded_at, c.text,
           c.token_count, 0::float8 AS score, length(d.name_key) AS key_length
    FROM documents d
    CROSS JOIN LATERAL (
      SELECT c.id, c.text, c.token_count FROM chunks c
      WHERE c.tenant_id = ${tenantId} AND c.document_id = d.id${recordedBy(scope, 'c')}
      ORDER BY c.index
      LIMIT 1) c
    WHERE d.tenant_id = ${tenantId} AND d.graph_id = ${graphId}
      AND d.name_key = ANY(${`{${names.map(arrayElement).join(',')}}`}::text[])
      AND d.status = ${PROCESSED}
      AND ${namesSomething('d.name_key')}
    ORDER BY length(d.name_key) DESC, d.id
    LIMIT ${limit}`;
}

/**
 * BM25's chunks (chunkLexicalSearchSql) and the documents `names` names (documentsNamedSql) in
 * one statement, one round trip: `part` 0 holds BM25's rows, 1 the named documents' first
 * chunks, each part in its own statement's order (`position`). The two take the same question
 * and are always awaited together.
 */
export function passageSearchSql(
  scope: Scope,
  text: string,
  k: number,
  names: string[],
  corpus?: CorpusStats,
  postingsPerTerm = DEFAULT_BM25_POSTINGS_PER_TERM,
  known: KnownFrequencies = NOTHING_KNOWN,
): SQL {
  return sql`SELECT 0 AS part, row_number() OVER (ORDER BY l.score DESC, l.chunk_id) AS position,
           l.chunk_id, l.document_id, l.document_name, l.document_date, l.loaded_at, l.text, l.token_count, l.score,
           l.corpus_chunks, l.corpus_mean_length, l.learned
    FROM (${chunkLexicalSearchSql(scope, text, k, corpus, postingsPerTerm, known)}) l
    UNION ALL
    SELECT 1, row_number() OVER (ORDER BY n.key_length DESC, n.document_id),
           n.chunk_id, n.document_id, n.document_name, n.document_date, n.loaded_at, n.text, n.token_count, n.score,
           NULL::float8, NULL::float8, NULL::json
    FROM (${documentsNamedSql(scope, names)}) n
    ORDER BY part, position`;
}

/** True when the name key (SQL text) has a word that is not a stopword. */
export const namesSomething = (key: string): SQL => sql`length(to_tsvector(${TEXT_SEARCH_CONFIG}, ${sql.raw(key)})) > 0`;

/** A question names at most this many documents (a comparison names two, a list a few). */
export const MAX_NAMED_DOCUMENTS = 8;

/** A question names at most this many entities worth seeding a walk with. */
export const MAX_NAMED_ENTITIES = 16;

/** A text[] literal element, quoted (names are free text). */
const arrayElement = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** A fact's own words as migration 0014's trigger stems them into edges.lexemes (SQL over `x`). */
const FACT_WORDS = sql.raw(`replace(x.relation, '_', ' ') || ' ' || coalesce(x.description, '') || ' ' || coalesce(x.keywords, '')`);

/**
 * The live visible facts stated in `chunkIds` (the passages BM25 ranks first), ranked by BM25 of
 * their own words (both endpoints' names, the relation, description and keywords) against
 * `text`, with each lexeme's IDF taken from the graph's chunks: facts have too few words to be
 * a corpus of their own, and a word rare among the passages is as telling in a fact. Ranking the
 * facts of the best passages finds the fact that answers, at the grain of one statement. The
 * facts' own words are stemmed when they are written (edges.lexemes); only the endpoints' short
 * names are stemmed here (and the words of facts written before migration 0014, whose lexemes
 * are null).
 */
export function edgeLexicalSearchSql(
  scope: Scope,
  text: string,
  chunkIds: number[],
  k: number,
  corpus?: CorpusStats,
  known: KnownFrequencies = NOTHING_KNOWN,
): SQL {
  const { tenantId, graphId } = scope;
  return sql`WITH asked AS MATERIALIZED (
      SELECT DISTINCT t.lexeme FROM unnest(to_tsvector(${TEXT_SEARCH_CONFIG}, ${text})) AS t),
    corpus AS MATERIALIZED (${corpusSql(scope, corpus)}),
    frequencies AS MATERIALIZED (
      SELECT a.lexeme, ${frequencySql(scope, known, 'p')} AS df,
             NOT (${JSON.stringify(known.frequencies)}::jsonb ? a.lexeme) AS counted
      FROM asked a),
    weights AS MATERIALIZED (
      SELECT f.lexeme, ln(1 + (greatest(corpus.n, f.df) - f.df + 0.5) / (f.df + 0.5)) AS idf
      FROM frequencies f CROSS JOIN corpus),
    learned AS MATERIALIZED (SELECT ${learnedSql(known)} AS learned),
    candidates AS MATERIALIZED (
      SELECT DISTINCT ON (x.id) x.id, x.source_id, x.target_id, x.relation, x.description, x.keywords, x.weight, x.valid_at,
             x.invalid_at, x.lexemes
      FROM edge_chunks xc
      JOIN edges x ON x.tenant_id = ${tenantId} AND x.id = xc.edge_id
      WHERE xc.tenant_id = ${tenantId} AND xc.chunk_id = ANY(${bigintArray(chunkIds)})
        AND x.graph_id = ${graphId} AND ${liveEdge(scope, 'x')} AND ${edgeVisible(scope, 'x')}),
    x AS MATERIALIZED (
      SELECT c.*, s.name AS source, t.name AS target
      FROM candidates c
      JOIN entities s ON s.tenant_id = ${tenantId} AND s.graph_id = ${graphId} AND s.id = c.source_id
      JOIN entities t ON t.tenant_id = ${tenantId} AND t.graph_id = ${graphId} AND t.id = c.target_id),
    terms AS (
      SELECT x.id, v.lexeme, coalesce(array_length(v.positions, 1), 1) AS frequency
      FROM x CROSS JOIN LATERAL unnest(
        coalesce(x.lexemes, to_tsvector(${TEXT_SEARCH_CONFIG}, ${FACT_WORDS}))
          || to_tsvector(${TEXT_SEARCH_CONFIG}, x.source || ' ' || x.target)) AS v),
    lengths AS (
      SELECT id, sum(frequency)::float8 AS length FROM terms GROUP BY id),
    mean AS (
      SELECT greatest(avg(length), 1) AS length FROM lengths),
    scored AS (
      SELECT t.id, sum(w.idf * t.frequency * ${float(BM25_K1 + 1)}
                 / (t.frequency + ${float(BM25_K1)} * (1 - ${float(BM25_B)} + ${float(BM25_B)} * l.length / mean.length))) AS score
      FROM terms t JOIN weights w ON w.lexeme = t.lexeme JOIN lengths l ON l.id = t.id CROSS JOIN mean
      GROUP BY t.id)
    SELECT x.id, x.source_id, x.target_id, x.source, x.target, x.relation, x.description, x.keywords, x.weight,
           x.valid_at, x.invalid_at, s.score, corpus.n AS corpus_chunks, learned.learned
    FROM scored s JOIN x ON x.id = s.id CROSS JOIN corpus CROSS JOIN learned
    ORDER BY s.score DESC, x.id
    LIMIT ${k}`;
}
