import { bigint, customType, timestamp, uuid } from 'drizzle-orm/pg-core';
import { type HalfvecParam, halfvecParam } from '../vector-text';

/**
 * The widest vector the store holds, and what remote embedders are asked for (OpenAI's
 * `dimensions` parameter): 1024 keeps a 1M-edge graph's vectors near 2 GiB at half precision while
 * text-embedding-3 at 1024 loses little recall. Narrower vectors have columns of their own
 * (vector-width.ts); vectors from different models are never compared (rows record `embedding_model`).
 */
export const EMBEDDING_DIMENSIONS = 1024;

/** The width of the narrow vector columns (`embedding_256`, …): the offline embedder's (vector-width.ts). */
export const NARROW_EMBEDDING_DIMENSIONS = 256;

export const tenantIdColumn = () => uuid('tenant_id').notNull();

/** Graph rows get integer ids: the gb contract exposes them as JSON numbers. */
export const serialIdColumn = () => bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity();

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/**
 * Vectors are stored and indexed at half precision (pgvector's `halfvec`, 2 bytes an element):
 * an HNSW element of 1024 dimensions is then 2 KB, so three share an 8 KB index page where a
 * `vector` element took a page of its own; the indexes are a third the size and stay in cache.
 * Cosine rankings are the same to the precision embeddings carry (docs/decisions/0004-vectors-as-halfvec.md).
 * The embedded store (PGlite) keeps the same values as `vector` instead (migration 0020): in
 * WebAssembly half precision is converted in software, and its HNSW upkeep cost several times
 * more. The schema here is PostgreSQL's; every statement casts the vectors it sends to the store's
 * type through the domains of vector-width.ts (`loci_vector`, …), so the HNSW opclass applies on
 * both: an operand of the other type would compare through a cast of each row and miss the index.
 */
export const embeddingColumn = (name: string) => halfvecColumn(EMBEDDING_DIMENSIONS)(name);

/** A vector column at the narrow width (NARROW_EMBEDDING_DIMENSIONS), beside the full-width one of the same name. */
export const narrowEmbeddingColumn = (name: string) => halfvecColumn(NARROW_EMBEDDING_DIMENSIONS)(name);

/**
 * drizzle's own `halfvec` column, with the store's precision in what it sends: the same SQL type,
 * so the schema and its migrations are unchanged. A written vector is a halfvec parameter
 * (halfvecParam: binary on node-postgres, its text on PGlite), typed by the column it goes to:
 * a chunk's write sends ~30 vectors, ~10 KB of decimals each as text, which the driver encoded
 * and PostgreSQL parsed with strtof, 1 024 a vector (docs/BENCHMARKS.md, "Issue 16: CPU a chunk").
 */
const halfvecColumn = (width: number) =>
  customType<{ data: number[]; driverData: HalfvecParam | string }>({
    dataType: () => `halfvec(${width})`,
    toDriver: (vector) => halfvecParam(vector),
    fromDriver: (text) => String(text).slice(1, -1).split(',').map(Number.parseFloat),
  });

/** The HNSW operator class of vector columns (cosine distance). */
export const VECTOR_COSINE_OPS = 'halfvec_cosine_ops';

/** Money is integer micro-dollars (1 USD = 1_000_000); never a float. */
export const microDollars = (name: string) => bigint(name, { mode: 'number' });

/** A text search vector (lexemes with positions); written by PostgreSQL, read only in SQL. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });
