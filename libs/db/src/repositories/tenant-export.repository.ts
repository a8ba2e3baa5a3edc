import { Inject, Injectable, Optional } from '@nestjs/common';
import { and, asc, eq, getTableColumns, gt, sql } from 'drizzle-orm';
import { Database, DATABASE, Db } from '../database';
import { isUuid } from '../ids';
import { ReadRouter } from '../replicas/read-router';
import {
  chunks,
  documents,
  edgeChunks,
  edgeDocuments,
  edges,
  entities,
  entityChunks,
  entityDocuments,
  graphs,
  inferences,
  requestLogs,
} from '../schema';

/** Where a page of a table ends: the last row's key (an id, or a link's two ids). */
export type ExportCursor = number | readonly [number, number] | null;

export type ExportKind =
  | 'graph'
  | 'document'
  | 'chunk'
  | 'entity'
  | 'edge'
  | 'entity_document'
  | 'edge_document'
  | 'entity_chunk'
  | 'edge_chunk'
  | 'inference'
  | 'request_log';

export interface ExportPage {
  rows: Record<string, unknown>[];
  /** Pass back to read the next page; null when this was the last one. */
  next: ExportCursor;
}

// Who is ingesting a text right now says nothing about the tenant's data: never exported.
const { leaseHolder: _d1, leaseExpiresAt: _d2, ...documentColumns } = getTableColumns(documents);
// Without `vectors=true`, no vector column of either tier (a bulk-loaded graph's are in `own_*`).
const {
  embedding: _c1, summaryEmbedding: _c2, embedding256: _c3, summaryEmbedding256: _c4,
  ownEmbedding: _c5, ownSummaryEmbedding: _c6, ownEmbedding256: _c7, ownSummaryEmbedding256: _c8,
  ...chunkColumns
} = getTableColumns(chunks);
const {
  embedding: _e1, nameEmbedding: _e2, embedding256: _e3, nameEmbedding256: _e4, ownEmbedding: _e5, ownEmbedding256: _e6,
  ...entityColumns
} = getTableColumns(entities);
// edges.lexemes is derived from the fact's words (a trigger keeps it): never exported.
const { embedding: _g1, embedding256: _g4, ownEmbedding: _g5, ownEmbedding256: _g6, lexemes: _g2, ...edgeColumns } = getTableColumns(edges);
const { lexemes: _g3, ...edgeColumnsWithVectors } = getTableColumns(edges);

const LINKS = {
  entity_document: { table: entityDocuments, a: entityDocuments.entityId, b: entityDocuments.documentId },
  edge_document: { table: edgeDocuments, a: edgeDocuments.edgeId, b: edgeDocuments.documentId },
  entity_chunk: { table: entityChunks, a: entityChunks.entityId, b: entityChunks.chunkId },
  edge_chunk: { table: edgeChunks, a: edgeChunks.edgeId, b: edgeChunks.chunkId },
} as const;

/**
 * Reads one tenant's rows for its export, a page at a time in key order (keyset pagination on
 * the primary keys, which lead with tenant_id): a big tenant is streamed, never held in memory.
 * Each page is its own statement, so the export is not one snapshot; rows are never torn.
 *
 * On a streaming replica when DATABASE_READ_URL names one (ReadRouter, scope: the tenant), else
 * the primary. `begin` before the first page makes the pages see every write committed before it.
 */
@Injectable()
export class TenantExportRepository {
  private readonly reads: ReadRouter;

  constructor(@Inject(DATABASE) database: Database, @Optional() reads?: ReadRouter) {
    this.reads = reads ?? new ReadRouter(database);
  }

  /**
   * An export starts: its pages, on a replica, wait for the primary's position now (what the
   * tenant's client wrote before asking for its export is in it). One statement with replicas.
   */
  begin(tenantId: string): Promise<void> {
    return this.reads.noteWrite({ tenantId });
  }

  async page(tenantId: string, kind: ExportKind, after: ExportCursor, limit: number, withVectors: boolean): Promise<ExportPage> {
    if (!isUuid(tenantId)) return { rows: [], next: null };
    const rows = await this.reads.read({ tenantId }, (db) => this.read(db, tenantId, kind, after, limit, withVectors));
    if (rows.length < limit) return { rows, next: null };
    const last = rows[rows.length - 1];
    const next: ExportCursor = kind in LINKS ? [Number(last.a), Number(last.b)] : Number(last.id);
    return { rows, next };
  }

  private read(db: Db, tenantId: string, kind: ExportKind, after: ExportCursor, limit: number, withVectors: boolean): Promise<Record<string, unknown>[]> {
    const afterId = typeof after === 'number' ? after : -1;
    switch (kind) {
      case 'graph':
        return db.select().from(graphs).where(and(eq(graphs.tenantId, tenantId), gt(graphs.id, afterId))).orderBy(asc(graphs.id)).limit(limit);
      case 'document':
        return db
          .select(documentColumns)
          .from(documents)
          .where(and(eq(documents.tenantId, tenantId), gt(documents.id, afterId)))
          .orderBy(asc(documents.id))
          .limit(limit);
      case 'chunk':
        return db
          .select(withVectors ? getTableColumns(chunks) : chunkColumns)
          .from(chunks)
          .where(and(eq(chunks.tenantId, tenantId), gt(chunks.id, afterId)))
          .orderBy(asc(chunks.id))
          .limit(limit);
      case 'entity':
        return db
          .select(withVectors ? getTableColumns(entities) : entityColumns)
          .from(entities)
          .where(and(eq(entities.tenantId, tenantId), gt(entities.id, afterId)))
          .orderBy(asc(entities.id))
          .limit(limit);
      case 'edge':
        return db
          .select(withVectors ? edgeColumnsWithVectors : edgeColumns)
          .from(edges)
          .where(and(eq(edges.tenantId, tenantId), gt(edges.id, afterId)))
          .orderBy(asc(edges.id))
          .limit(limit);
      case 'inference':
        return db
          .select()
          .from(inferences)
          .where(and(eq(inferences.tenantId, tenantId), gt(inferences.id, afterId)))
          .orderBy(asc(inferences.id))
          .limit(limit);
      case 'request_log':
        return db
          .select()
          .from(requestLogs)
          .where(and(eq(requestLogs.tenantId, tenantId), gt(requestLogs.id, afterId)))
          .orderBy(asc(requestLogs.id))
          .limit(limit);
      default: {
        const link = LINKS[kind];
        const [a, b] = Array.isArray(after) ? after : [-1, -1];
        return db
          .select({ a: link.a, b: link.b })
          .from(link.table)
          .where(and(eq(link.table.tenantId, tenantId), sql`(${link.a}, ${link.b}) > (${a}, ${b})`))
          .orderBy(asc(link.a), asc(link.b))
          .limit(limit);
      }
    }
  }
}
