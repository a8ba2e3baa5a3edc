import { createHash } from 'node:crypto';
import type { PoolClient } from 'pg';
import { PgDialect } from 'drizzle-orm/pg-core';
import { indexStoredChunksSql } from '../libs/db/src/lexical';
import { EMBEDDING_DIMENSIONS } from '../libs/db/src/schema/columns';
import { StoredVectorWidth, VectorColumn, vectorColumnAt } from '../libs/db/src/vector-width';
import { countTokens } from '../libs/llm/src/metering/token-counter';
import { LocalHashingEmbedder } from '../libs/llm/src/local/hashing.embedder';
import { LOCAL_EMBEDDING_MODEL, LOCAL_PROVIDER, localEmbeddingModel } from '../libs/llm/src/local/models';
import { summarizeLocally } from '../libs/llm/src/local/summarizer';
import type { GenDocument, GenEntity } from './generator';

/**
 * Writes generated documents the way ingestion leaves them (see DocumentIngester and
 * GraphWriter): processed documents, chunks with summaries and both vectors, entities with
 * their retrieval and name vectors, edges with vector, temporal fields and artifact, and every
 * provenance row (entity/edge ↔ document and chunk). Multi-row INSERTs, one transaction per
 * batch of documents; the model calls are replaced by the local embedder and summarizer, which
 * is what the embedded default runs anyway.
 */

/** What the `embed` stage records as `embedding_model` (a `provider:model` spec) at the default width. */
export const BENCH_EMBEDDING_MODEL = `${LOCAL_PROVIDER}:${LOCAL_EMBEDDING_MODEL}`;

/**
 * The offline embedder at one stored width, as ingestion with LOCI_LOCAL_EMBEDDING_DIM=width
 * leaves it: vectors in that width's columns (vectorColumnAt; the other width's stay null) and
 * the model named for the width (`local:local-hash-v1-256d` at 256), which searches filter on.
 */
interface WidthWriter {
  column: (name: VectorColumn) => string;
  model: string;
  vector: (text: string) => string;
}

const writers = new Map<StoredVectorWidth, WidthWriter>();
function writerAt(width: StoredVectorWidth): WidthWriter {
  let writer = writers.get(width);
  if (!writer) {
    const embedder = new LocalHashingEmbedder(width);
    writer = {
      column: (name) => vectorColumnAt(name, width),
      model: `${LOCAL_PROVIDER}:${localEmbeddingModel(width)}`,
      vector: (text) => JSON.stringify(embedder.embedText(text)),
    };
    writers.set(width, writer);
  }
  return writer;
}
const contentHash = (text: string) => createHash('sha256').update(text.trim()).digest('hex');

const dialect = new PgDialect();

/** Rows per INSERT: below the 65 535-parameter limit, and small enough that vector text stays a few MB. */
const MAX_ROWS = 200;

export interface BatchCounts {
  documents: number;
  chunks: number;
  entities: number;
  edges: number;
  provenance: number;
}

/** Where a batch goes: a tenant's default graph (uploaded documents) or a gb dataset graph (remembered texts). */
export interface WriteScope {
  tenantId: string;
  graphId: number;
  /** `document` (default graph) or `gb_text` (a gb dataset's artifacts). */
  documentKind?: 'document' | 'gb_text';
}

export async function writeBatch(
  client: PoolClient,
  scope: WriteScope,
  batch: GenDocument[],
  width: StoredVectorWidth = EMBEDDING_DIMENSIONS,
): Promise<BatchCounts> {
  const { tenantId, graphId } = scope;
  const { column, model, vector } = writerAt(width);
  const kind = scope.documentKind ?? 'document';
  const counts: BatchCounts = { documents: 0, chunks: 0, entities: 0, edges: 0, provenance: 0 };
  await client.query('BEGIN');
  try {
    const documentIds = await insertRows(
      client,
      'documents',
      ['tenant_id', 'graph_id', 'kind', 'name', 'mime_type', 'content_hash', 'text', 'document_date', 'status', 'chunks_total', 'chunks_done', 'loaded_at', 'processed_at', 'created_at', 'updated_at'],
      batch.map((d) => {
        const processedAt = new Date(d.loadedAt.getTime() + 5_000 * d.chunks.length);
        return [tenantId, graphId, kind, d.name, 'text/plain', contentHash(d.text), d.text, d.documentDate, 'processed', d.chunks.length, d.chunks.length, d.loadedAt, processedAt, d.loadedAt, processedAt];
      }),
    );
    batch.forEach((d, i) => (d.dbId = documentIds[i]));
    counts.documents = batch.length;

    const newEntities: GenEntity[] = batch.flatMap((d) => d.chunks.flatMap((c) => c.introduces));
    const entityIds = await insertRows(
      client,
      'entities',
      ['tenant_id', 'graph_id', 'name', 'normalized_name', 'type', 'description', column('embedding'), column('name_embedding'), 'embedding_model'],
      newEntities.map((e) => [tenantId, graphId, e.name, e.normalizedName, e.type, e.description, vector(`${e.name}: ${e.description}`), vector(e.name), model]),
    );
    newEntities.forEach((e, i) => (e.dbId = entityIds[i]));
    counts.entities = newEntities.length;

    const chunks = batch.flatMap((d) => d.chunks.map((c) => ({ document: d, chunk: c })));
    const chunkIds = await insertRows(
      client,
      'chunks',
      ['tenant_id', 'graph_id', 'document_id', 'index', 'text', 'token_count', 'summary', column('embedding'), column('summary_embedding'), 'embedding_model'],
      chunks.map(({ document, chunk }) => {
        const summary = summarizeLocally(chunk.text);
        return [tenantId, graphId, document.dbId, chunk.index, chunk.text, countTokens(chunk.text), summary, vector(chunk.text), summary ? vector(summary) : null, model];
      }),
    );
    chunks.forEach(({ chunk }, i) => (chunk.dbId = chunkIds[i]));
    counts.chunks = chunks.length;
    // The lexical index (BM25's postings), as ingestion writes it with each chunk.
    const lexical = dialect.sqlToQuery(indexStoredChunksSql(tenantId, chunkIds));
    await client.query(lexical.sql, lexical.params);

    const facts = chunks.flatMap(({ document, chunk }) => chunk.facts.map((fact) => ({ document, fact })));
    const edgeIds = await insertRows(
      client,
      'edges',
      ['tenant_id', 'graph_id', 'source_id', 'target_id', 'relation', 'description', 'keywords', 'weight', column('embedding'), 'embedding_model', 'valid_at', 'invalid_at', 'created_at', 'expired_at', 'artifact_id', 'updated_at'],
      facts.map(({ document, fact }) => {
        const { source, target, template } = fact;
        // The text the ingester embeds for a relation.
        const text = `${source.name} ${template.relation.replace(/_/g, ' ')} ${target.name}. ${fact.description}`;
        const expiredAt = fact.state === 'superseded' ? new Date(document.loadedAt.getTime() + 60_000) : null;
        return [tenantId, graphId, source.dbId, target.dbId, template.relation, fact.description, template.keywords.join(', '), fact.weight, vector(text), model, fact.validAt, fact.invalidAt, document.loadedAt, expiredAt, document.dbId, expiredAt ?? document.loadedAt];
      }),
    );
    facts.forEach(({ fact }, i) => (fact.dbId = edgeIds[i]));
    counts.edges = facts.length;

    const entityDocuments = new Set<string>();
    const entityChunks: unknown[][] = [];
    const edgeDocuments: unknown[][] = [];
    const edgeChunks: unknown[][] = [];
    for (const { document, chunk } of chunks) {
      for (const entity of chunk.mentions) {
        entityDocuments.add(`${entity.dbId}:${document.dbId}`);
        entityChunks.push([tenantId, entity.dbId, chunk.dbId]);
      }
      for (const fact of chunk.facts) {
        edgeDocuments.push([tenantId, fact.dbId, document.dbId]);
        edgeChunks.push([tenantId, fact.dbId, chunk.dbId]);
      }
    }
    const entityDocumentRows = [...entityDocuments].map((pair) => [tenantId, ...pair.split(':').map(Number)]);
    await insertRows(client, 'entity_documents', ['tenant_id', 'entity_id', 'document_id'], entityDocumentRows, null, 'ON CONFLICT DO NOTHING');
    await insertRows(client, 'entity_chunks', ['tenant_id', 'entity_id', 'chunk_id'], entityChunks, null);
    await insertRows(client, 'edge_documents', ['tenant_id', 'edge_id', 'document_id'], edgeDocuments, null);
    await insertRows(client, 'edge_chunks', ['tenant_id', 'edge_id', 'chunk_id'], edgeChunks, null);
    counts.provenance = entityDocumentRows.length + entityChunks.length + edgeDocuments.length + edgeChunks.length;
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return counts;
}

/**
 * Multi-row INSERT … VALUES in slices; returns the new ids in row order (PostgreSQL returns the
 * rows of one INSERT … VALUES … RETURNING in the order of its VALUES list).
 */
async function insertRows(
  client: PoolClient,
  table: string,
  columns: string[],
  rows: unknown[][],
  returning: string | null = 'id',
  suffix = '',
): Promise<number[]> {
  const ids: number[] = [];
  const perStatement = Math.min(MAX_ROWS, Math.floor(65_000 / columns.length));
  const columnList = columns.map((c) => `"${c}"`).join(', ');
  for (let start = 0; start < rows.length; start += perStatement) {
    const slice = rows.slice(start, start + perStatement);
    const params: unknown[] = [];
    const tuples = slice.map((row) => `(${row.map((value) => `$${params.push(value)}`).join(', ')})`);
    const text = `INSERT INTO ${table} (${columnList}) VALUES ${tuples.join(', ')} ${suffix}${returning ? ` RETURNING ${returning}` : ''}`;
    const result = await client.query(text, params);
    if (returning) {
      if (result.rows.length !== slice.length) throw new Error(`${table}: inserted ${result.rows.length} of ${slice.length} rows`);
      for (const row of result.rows) ids.push(Number(row[returning]));
    }
  }
  return ids;
}
