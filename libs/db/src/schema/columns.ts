import { bigint, timestamp, uuid, vector } from 'drizzle-orm/pg-core';

/**
 * Width of every vector column. HNSW needs a fixed width, and vectors from different models
 * are never compared with each other (each row records `embedding_model`). Models that emit
 * fewer dimensions are zero-padded, which leaves cosine similarity unchanged; models that
 * emit more are asked for this many (OpenAI's `dimensions` parameter). 1024 keeps a 1M-edge
 * graph's vectors near 4 GiB while text-embedding-3 at 1024 loses little recall.
 */
export const EMBEDDING_DIMENSIONS = 1024;

export const tenantIdColumn = () => uuid('tenant_id').notNull();

/** Graph rows get integer ids: the gb contract exposes them as JSON numbers. */
export const serialIdColumn = () => bigint('id', { mode: 'number' }).generatedAlwaysAsIdentity();

export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const embeddingColumn = (name: string) => vector(name, { dimensions: EMBEDDING_DIMENSIONS });

/** Money is integer micro-dollars (1 USD = 1_000_000); never a float. */
export const microDollars = (name: string) => bigint(name, { mode: 'number' });
