import { SQL, sql } from 'drizzle-orm';
import { EMBEDDING_DIMENSIONS, NARROW_EMBEDDING_DIMENSIONS } from './schema/columns';
import type { DatabaseKind } from './database';
import { halfvecParam } from './vector-text';

/**
 * The widths the store keeps vectors at, each in columns of its own with HNSW indexes of its own
 * (docs/decisions/0005-vectors-at-their-width.md, "A vector is stored at the width its model needs"):
 * - 1024 (`embedding`, `summary_embedding`, `name_embedding`): remote models, asked for 1024;
 * - 256 (`embedding_256`, …): the offline hashing embedder, which finds at 256 what it finds at
 *   1024, where one HNSW insertion costs ~30% less PostgreSQL CPU (docs/BENCHMARKS.md, "Issue 16.1").
 *
 * A vector of another width is zero-padded to the narrowest width that holds it (cosine is
 * unchanged by padding). A row's vector is in exactly one of a column's widths; the other is null.
 * Columns of their own rather than one column of any width: the 1024-wide columns and their
 * indexes stay as they were, so adding a width took no index rebuild (an expression index per
 * width on one untyped column would have rebuilt every HNSW index with the tables locked).
 */
export const STORED_VECTOR_WIDTHS = [NARROW_EMBEDDING_DIMENSIONS, EMBEDDING_DIMENSIONS] as const;
export type StoredVectorWidth = (typeof STORED_VECTOR_WIDTHS)[number];

/** The narrowest stored width that holds `dimensions`. */
export function storedWidth(dimensions: number): StoredVectorWidth {
  const width = STORED_VECTOR_WIDTHS.find((w) => dimensions <= w);
  if (width === undefined || !Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`a vector of ${dimensions} dimensions does not fit the store (at most ${EMBEDDING_DIMENSIONS})`);
  }
  return width;
}

/** `vector` zero-padded to its stored width (the same array when it is one already). */
export function atStoredWidth(vector: number[]): number[] {
  const width = storedWidth(vector.length);
  return vector.length === width ? vector : [...vector, ...new Array<number>(width - vector.length).fill(0)];
}

/**
 * The SQL types a statement casts the vectors it sends to: domains over the store's vector type
 * (migration 0020), `halfvec` on PostgreSQL and `vector` on the embedded store (docs/decisions/0007-embedded-store-single-precision.md,
 * "The embedded store keeps vectors in single precision"), so that the same SQL is each store's
 * index operator. `QUERY_VECTOR` is any width (a search's operand); the other two are the two
 * widths' columns, to type a vector written to one (`$n::loci_vector_1024`).
 */
export const QUERY_VECTOR = sql.raw('loci_vector');
export const WIDE_VECTOR = sql.raw(`loci_vector_${EMBEDDING_DIMENSIONS}`);
export const NARROW_VECTOR = sql.raw(`loci_vector_${NARROW_EMBEDDING_DIMENSIONS}`);

/** The type of the store's vector columns and of the domains above (migration 0020). */
export const storedVectorType = (kind: DatabaseKind): 'halfvec' | 'vector' => (kind === 'pglite' ? 'vector' : 'halfvec');

/** The SQL names of the graph's vector columns at the full width. */
export type VectorColumn = 'embedding' | 'summary_embedding' | 'name_embedding';

/**
 * Where a graph keeps the vectors retrieval searches (`embedding`, `summary_embedding`): in the
 * shared columns, which every tenant's HNSW indexes cover, or in its own (`own_embedding`, …:
 * no shared index covers them) since a bulk load began; its own HNSW indexes, partial on its
 * id, are built once when the load ends (docs/decisions/0029-bulk-mode.md, "Bulk mode"). Entity names stay in
 * the shared columns in either tier. A graph is wholly in one tier, so a search never reads both.
 */
export type VectorTier = 'shared' | 'own';

/** The vectors a graph's tier decides the place of (the searched ones, not names). */
export type SearchVectorColumn = Exclude<VectorColumn, 'name_embedding'>;

/** The column of `column` in `tier`, at the full width: `embedding` or `own_embedding`. */
export function tierColumn(column: SearchVectorColumn, tier: VectorTier): SearchVectorColumn | `own_${SearchVectorColumn}` {
  return tier === 'own' ? `own_${column}` : column;
}

/** The column holding `column`'s vectors of `width`: `embedding` at 1024, `embedding_256` at 256. */
export function vectorColumnAt(column: VectorColumn | `own_${SearchVectorColumn}`, width: StoredVectorWidth): string {
  return width === EMBEDDING_DIMENSIONS ? column : `${column}_${width}`;
}

/**
 * How a search by `vector` reads `alias.column` of a graph in `tier`: the column of the vector's
 * width and of the tier (`column`, to name in `IS NOT NULL`) and the cosine distance to the vector (`distance`, to ORDER BY: that
 * column's HNSW operator). The vector must be at a stored width (atStoredWidth).
 */
export function nearestBy(
  alias: string,
  column: VectorColumn,
  vector: number[],
  tier: VectorTier = 'shared',
): { column: SQL; distance: SQL } {
  const width = storedWidth(vector.length);
  if (vector.length !== width) throw new RangeError(`a search vector of ${vector.length} dimensions is not at a stored width`);
  const placed = column === 'name_embedding' ? column : tierColumn(column, tier);
  const stored = sql.raw(`${alias}.${vectorColumnAt(placed, width)}`);
  return { column: stored, distance: sql`${stored} <=> ${halfvecParam(vector)}::${QUERY_VECTOR}` };
}

/** Vectors of a row as written: each logical vector goes to the column of its width, the other gets null. */
export interface WidthPlacement {
  wide: number[] | null;
  narrow: number[] | null;
}

/** Where `vector` (at a stored width, or null) is written: the 1024-wide column or the 256-wide one. */
export function placeByWidth(vector: number[] | null | undefined): WidthPlacement {
  if (vector === null || vector === undefined) return { wide: null, narrow: null };
  const stored = atStoredWidth(vector);
  return stored.length === EMBEDDING_DIMENSIONS ? { wide: stored, narrow: null } : { wide: null, narrow: stored };
}
