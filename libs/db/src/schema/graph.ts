import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, embeddingColumn, narrowEmbeddingColumn, serialIdColumn, tenantIdColumn, tsvector, updatedAt, VECTOR_COSINE_OPS } from './columns';
import { tenants } from './tenancy';

/** A graph's own search vectors: being loaded, their indexes being built, built (see `graphs.own_vectors`). */
export const OWN_VECTORS_STATES = ['loading', 'indexing', 'indexed'] as const;
export type OwnVectorsState = (typeof OWN_VECTORS_STATES)[number];

export const graphKind = pgEnum('graph_kind', ['default', 'gb']);
export const documentKind = pgEnum('document_kind', ['document', 'gb_text']);
export const documentStatus = pgEnum('document_status', ['pending', 'processing', 'processed', 'failed', 'deferred']);

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const graphRef = (t: { tenantId: any; graphId: any }) =>
  foreignKey({ columns: [t.tenantId, t.graphId], foreignColumns: [graphs.tenantId, graphs.id] }).onDelete('cascade');

/**
 * A tenant's graphs: exactly one `default` graph (documents, /v1/query) and one `gb` graph per
 * (gb user, dataset). Every graph row below belongs to one graph.
 */
export const graphs = pgTable(
  'graphs',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    kind: graphKind('kind').notNull(),
    /** The gb caller's user_id (a string the tenant chooses); null for the default graph. */
    gbUserId: text('gb_user_id'),
    /** The gb dataset name (`main` unless asked); `default` for the default graph. */
    name: text('name').notNull(),
    /**
     * Where the graph keeps its search vectors (vector-width.ts, `VectorTier`): null in the shared
     * columns every tenant's HNSW indexes cover; otherwise in its own columns (`own_embedding`, …)
     * since a bulk load began (docs/decisions/0029-bulk-mode.md, "Bulk mode"): `loading` while the load runs (its
     * searches read its rows exactly), `indexing` once it ended and its own HNSW indexes are being
     * built, `indexed` when they are.
     */
    ownVectors: text('own_vectors').$type<OwnVectorsState>(),
    /** When the graph's bulk load began (null if it never had one). */
    bulkLoadStartedAt: timestamptz('bulk_load_started_at'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    check('graphs_own_vectors_check', sql`${t.ownVectors} IN ('loading', 'indexing', 'indexed')`),
    unique('graphs_identity_key').on(t.tenantId, t.kind, t.gbUserId, t.name).nullsNotDistinct(),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * What was ingested: an uploaded document or a gb `remember` text (the gb contract's artifact).
 * The content hash de-duplicates uploads within a graph.
 */
export const documents = pgTable(
  'documents',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    graphId: bigint('graph_id', { mode: 'number' }).notNull(),
    kind: documentKind('kind').notNull(),
    name: text('name').notNull(),
    /**
     * What the name says the document is about (documentNameKey in @loci/common), for uploaded
     * documents: retrieval follows a passage that names it, as a link. Null for gb texts.
     */
    nameKey: text('name_key'),
    mimeType: text('mime_type').notNull().default('text/plain'),
    contentHash: text('content_hash').notNull(),
    text: text('text').notNull(),
    /** The date the document speaks of (e.g. a report's date), distinct from when we loaded it. */
    documentDate: timestamptz('document_date'),
    sessionId: text('session_id'),
    status: documentStatus('status').notNull().default('pending'),
    /** Why the document is deferred or failed, in words a tenant can act on. */
    statusReason: text('status_reason'),
    chunksTotal: integer('chunks_total').notNull().default(0),
    chunksDone: integer('chunks_done').notNull().default(0),
    loadedAt: timestamptz('loaded_at').notNull().defaultNow(),
    processedAt: timestamptz('processed_at'),
    /**
     * Who ingests a gb text inline (a remember request's token) and until when, on the store's
     * clock: renewed while it runs; once passed, its process is presumed dead and a retry of the
     * same text takes the document over (uploads are leased by their job instead).
     */
    leaseHolder: text('lease_holder'),
    leaseExpiresAt: timestamptz('lease_expires_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    graphRef(t),
    uniqueIndex('documents_content_key').on(t.tenantId, t.graphId, t.contentHash),
    index('documents_graph_created_idx').on(t.tenantId, t.graphId, t.createdAt),
    index('documents_graph_name_key_idx').on(t.tenantId, t.graphId, t.nameKey),
  ],
);

/** Token-sized pieces of a document, with a summary; each has a text and a summary vector. */
export const chunks = pgTable(
  'chunks',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    graphId: bigint('graph_id', { mode: 'number' }).notNull(),
    documentId: bigint('document_id', { mode: 'number' }).notNull(),
    index: integer('index').notNull(),
    text: text('text').notNull(),
    tokenCount: integer('token_count').notNull(),
    summary: text('summary'),
    embedding: embeddingColumn('embedding'),
    summaryEmbedding: embeddingColumn('summary_embedding'),
    /** The same vectors at the narrow width (the offline embedder's); a row has one width or the other. */
    embedding256: narrowEmbeddingColumn('embedding_256'),
    summaryEmbedding256: narrowEmbeddingColumn('summary_embedding_256'),
    /** The same vectors of a graph that keeps its own (graphs.own_vectors): no shared index covers these. */
    ownEmbedding: embeddingColumn('own_embedding'),
    ownSummaryEmbedding: embeddingColumn('own_summary_embedding'),
    ownEmbedding256: narrowEmbeddingColumn('own_embedding_256'),
    ownSummaryEmbedding256: narrowEmbeddingColumn('own_summary_embedding_256'),
    embeddingModel: text('embedding_model'),
    /** Lexemes (with repeats) of the chunk's lexical text: its length for BM25 (see chunk_terms). */
    termCount: integer('term_count').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    graphRef(t),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete(
      'cascade',
    ),
    uniqueIndex('chunks_document_index_key').on(t.tenantId, t.documentId, t.index),
    // Small graphs (a gb dataset of a large tenant) are read exactly through this, not HNSW.
    index('chunks_graph_idx').on(t.tenantId, t.graphId),
    index('chunks_embedding_hnsw').using('hnsw', t.embedding.op(VECTOR_COSINE_OPS)),
    index('chunks_summary_embedding_hnsw').using('hnsw', t.summaryEmbedding.op(VECTOR_COSINE_OPS)),
    index('chunks_embedding_256_hnsw').using('hnsw', t.embedding256.op(VECTOR_COSINE_OPS)),
    index('chunks_summary_embedding_256_hnsw').using('hnsw', t.summaryEmbedding256.op(VECTOR_COSINE_OPS)),
  ],
);

/**
 * The lexical index of chunks, for BM25: one row per (chunk, lexeme) of the chunk's lexical text
 * (its document's name and its text, through PostgreSQL's `english` text search configuration),
 * with the lexeme's frequency in the chunk and the chunk's length. The key leads with the tenant
 * and graph, so a question reads only its own graph's postings of its own lexemes, and document
 * frequencies are counts over the same key. Written in the statement that inserts the chunk.
 */
export const chunkTerms = pgTable(
  'chunk_terms',
  {
    tenantId: tenantIdColumn(),
    graphId: bigint('graph_id', { mode: 'number' }).notNull(),
    lexeme: text('lexeme').notNull(),
    chunkId: bigint('chunk_id', { mode: 'number' }).notNull(),
    /** Occurrences of the lexeme in the chunk (tsvector positions, at most 256). */
    frequency: integer('frequency').notNull(),
    /** The chunk's term_count, repeated here so scoring never joins chunks for it. */
    chunkLength: integer('chunk_length').notNull(),
  },
  (t) => [
    // Migration 0014 adds INCLUDE (frequency, chunk_length) to this key, so BM25 reads a
    // question's postings index-only; the schema builder cannot express INCLUDE.
    primaryKey({ columns: [t.tenantId, t.graphId, t.lexeme, t.chunkId] }),
    // Deleting a chunk (its document, its graph) finds its postings through this.
    index('chunk_terms_chunk_idx').on(t.tenantId, t.chunkId),
    foreignKey({ columns: [t.tenantId, t.chunkId], foreignColumns: [chunks.tenantId, chunks.id] }).onDelete('cascade'),
  ],
);

/**
 * Things the text speaks of. `normalized_name` is what entity resolution matches on. No index
 * covers a column that merging changes (description, type, updated_at), so a merge is a HOT
 * update that writes no index entry; the table's pages are filled to 80% to leave it room
 * (fillfactor, migration 0013, which drizzle's schema does not express).
 */
export const entities = pgTable(
  'entities',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    graphId: bigint('graph_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    normalizedName: text('normalized_name').notNull(),
    type: text('type'),
    description: text('description'),
    /** Vector of name + description: what retrieval searches. */
    embedding: embeddingColumn('embedding'),
    /** Vector of the name alone: what entity resolution compares (cosine >= 0.75 = same). */
    nameEmbedding: embeddingColumn('name_embedding'),
    /** The same vectors at the narrow width (the offline embedder's); a row has one width or the other. */
    embedding256: narrowEmbeddingColumn('embedding_256'),
    nameEmbedding256: narrowEmbeddingColumn('name_embedding_256'),
    /**
     * `embedding` of a graph that keeps its own (graphs.own_vectors); the name vector stays in the
     * shared columns: entity resolution searches names on every chunk of a load.
     */
    ownEmbedding: embeddingColumn('own_embedding'),
    ownEmbedding256: narrowEmbeddingColumn('own_embedding_256'),
    embeddingModel: text('embedding_model'),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    graphRef(t),
    index('entities_graph_name_idx').on(t.tenantId, t.graphId, t.normalizedName),
    index('entities_embedding_hnsw').using('hnsw', t.embedding.op(VECTOR_COSINE_OPS)),
    index('entities_name_embedding_hnsw').using('hnsw', t.nameEmbedding.op(VECTOR_COSINE_OPS)),
    index('entities_embedding_256_hnsw').using('hnsw', t.embedding256.op(VECTOR_COSINE_OPS)),
    index('entities_name_embedding_256_hnsw').using('hnsw', t.nameEmbedding256.op(VECTOR_COSINE_OPS)),
    // The nearby search (geo): one graph's places by latitude band, longitudes (and ids) read
    // from the index, an index-only scan. Only places have coordinates, set once, so merges stay HOT.
    index('entities_graph_location_idx')
      .on(t.tenantId, t.graphId, t.latitude, t.longitude, t.id)
      .where(sql`${t.latitude} IS NOT NULL`),
  ],
);

/**
 * Facts: a relation from one entity to another, bi-temporal.
 * - valid_at / invalid_at: when the fact was true in the world (event time);
 * - created_at / expired_at: when Loci learned it and when newer knowledge superseded it
 *   (transaction time). Superseded facts (expired_at set) are kept but never retrieved.
 */
export const edges = pgTable(
  'edges',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    graphId: bigint('graph_id', { mode: 'number' }).notNull(),
    sourceId: bigint('source_id', { mode: 'number' }).notNull(),
    targetId: bigint('target_id', { mode: 'number' }).notNull(),
    relation: text('relation').notNull(),
    description: text('description'),
    keywords: text('keywords'),
    /**
     * The lexemes of the fact's own words (relation, description, keywords), set by a trigger
     * (migration 0014) on every insert and on updates of those columns, so the global path's
     * BM25 over facts does not stem them at every question; null on facts written before 0014,
     * which are stemmed at question time as before (edgeLexicalSearchSql).
     */
    lexemes: tsvector('lexemes'),
    weight: doublePrecision('weight').notNull().default(1),
    embedding: embeddingColumn('embedding'),
    /** The same vector at the narrow width (the offline embedder's); a row has one width or the other. */
    embedding256: narrowEmbeddingColumn('embedding_256'),
    /** `embedding` of a graph that keeps its own (graphs.own_vectors). */
    ownEmbedding: embeddingColumn('own_embedding'),
    ownEmbedding256: narrowEmbeddingColumn('own_embedding_256'),
    embeddingModel: text('embedding_model'),
    validAt: timestamptz('valid_at'),
    invalidAt: timestamptz('invalid_at'),
    createdAt: createdAt(),
    expiredAt: timestamptz('expired_at'),
    /** The document (gb: artifact) the fact was first inferred from; cleared (only it: see
     * migration 0003) when that document is deleted while others still support the fact. */
    artifactId: bigint('artifact_id', { mode: 'number' }),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    graphRef(t),
    foreignKey({ columns: [t.tenantId, t.sourceId], foreignColumns: [entities.tenantId, entities.id] }).onDelete(
      'cascade',
    ),
    foreignKey({ columns: [t.tenantId, t.targetId], foreignColumns: [entities.tenantId, entities.id] }).onDelete(
      'cascade',
    ),
    // No SET NULL: Citus refuses it on a key that holds tenant_id (migration 0031); deleting a
    // document clears its edges' artifact_id itself (DocumentsRepository.delete).
    foreignKey({ columns: [t.tenantId, t.artifactId], foreignColumns: [documents.tenantId, documents.id] }).onDelete(
      'no action',
    ),
    // One-hop expansion reads live edges around a set of entities, newest first.
    index('edges_live_source_idx').on(t.tenantId, t.sourceId, t.createdAt).where(sql`${t.expiredAt} IS NULL`),
    index('edges_live_target_idx').on(t.tenantId, t.targetId, t.createdAt).where(sql`${t.expiredAt} IS NULL`),
    index('edges_embedding_hnsw').using('hnsw', t.embedding.op(VECTOR_COSINE_OPS)),
    index('edges_embedding_256_hnsw').using('hnsw', t.embedding256.op(VECTOR_COSINE_OPS)),
    index('edges_live_graph_idx').on(t.tenantId, t.graphId).where(sql`${t.expiredAt} IS NULL`),
    // Deleting an entity, a document or a whole graph looks edges up by each foreign key (the
    // cascades and the SET NULL): without these, every deleted row scans the tenant's edges.
    index('edges_source_idx').on(t.tenantId, t.sourceId),
    index('edges_target_idx').on(t.tenantId, t.targetId),
    index('edges_artifact_idx').on(t.tenantId, t.artifactId),
    index('edges_graph_idx').on(t.tenantId, t.graphId),
  ],
);

/** Provenance: which documents and chunks support an entity or an edge. */
export const entityDocuments = pgTable(
  'entity_documents',
  {
    tenantId: tenantIdColumn(),
    entityId: bigint('entity_id', { mode: 'number' }).notNull(),
    documentId: bigint('document_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.entityId, t.documentId] }),
    index('entity_documents_document_idx').on(t.tenantId, t.documentId),
    foreignKey({ columns: [t.tenantId, t.entityId], foreignColumns: [entities.tenantId, entities.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const edgeDocuments = pgTable(
  'edge_documents',
  {
    tenantId: tenantIdColumn(),
    edgeId: bigint('edge_id', { mode: 'number' }).notNull(),
    documentId: bigint('document_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.edgeId, t.documentId] }),
    index('edge_documents_document_idx').on(t.tenantId, t.documentId),
    foreignKey({ columns: [t.tenantId, t.edgeId], foreignColumns: [edges.tenantId, edges.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.documentId], foreignColumns: [documents.tenantId, documents.id] }).onDelete(
      'cascade',
    ),
  ],
);

export const entityChunks = pgTable(
  'entity_chunks',
  {
    tenantId: tenantIdColumn(),
    entityId: bigint('entity_id', { mode: 'number' }).notNull(),
    chunkId: bigint('chunk_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.entityId, t.chunkId] }),
    index('entity_chunks_chunk_idx').on(t.tenantId, t.chunkId),
    foreignKey({ columns: [t.tenantId, t.entityId], foreignColumns: [entities.tenantId, entities.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.chunkId], foreignColumns: [chunks.tenantId, chunks.id] }).onDelete('cascade'),
  ],
);

export const edgeChunks = pgTable(
  'edge_chunks',
  {
    tenantId: tenantIdColumn(),
    edgeId: bigint('edge_id', { mode: 'number' }).notNull(),
    chunkId: bigint('chunk_id', { mode: 'number' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.edgeId, t.chunkId] }),
    index('edge_chunks_chunk_idx').on(t.tenantId, t.chunkId),
    foreignKey({ columns: [t.tenantId, t.edgeId], foreignColumns: [edges.tenantId, edges.id] }).onDelete('cascade'),
    foreignKey({ columns: [t.tenantId, t.chunkId], foreignColumns: [chunks.tenantId, chunks.id] }).onDelete('cascade'),
  ],
);

export type GraphRow = typeof graphs.$inferSelect;
export type DocumentRow = typeof documents.$inferSelect;
export type ChunkRow = typeof chunks.$inferSelect;
export type EntityRow = typeof entities.$inferSelect;
export type EdgeRow = typeof edges.$inferSelect;
