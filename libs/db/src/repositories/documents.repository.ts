import { Inject, Injectable } from '@nestjs/common';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { documentNameKey } from '@loci/common';
import { Database, DATABASE, Db, queryRows } from '../database';
import { DocumentRow, documents, edgeDocuments, edges, entities, entityDocuments } from '../schema';
import { freeStoredText } from './ingestion-counts.repository';

export type NewDocument = Pick<
  typeof documents.$inferInsert,
  'tenantId' | 'graphId' | 'kind' | 'name' | 'mimeType' | 'contentHash' | 'text' | 'documentDate' | 'sessionId'
>;

export interface DocumentCounts {
  chunks: number;
  entities: number;
  edges: number;
}

type DocumentStatus = DocumentRow['status'];

/**
 * What a claim of a document's ingestion found: `claimed` (the caller holds its lease now;
 * `tookOver` when an earlier holder's lease had passed unrenewed), `processed` (nothing left to
 * do), `held` (another holder's lease has not passed) or `gone` (deleted meanwhile).
 */
export type IngestionClaim = { state: 'claimed'; tookOver: boolean } | { state: 'processed' | 'held' | 'gone' };

/** `now() + ms`: leases are on the store's clock, which every API instance shares. */
const nowPlus = (ms: number) => sql`now() + ${Math.round(ms)}::integer * interval '1 millisecond'`;

@Injectable()
export class DocumentsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Creates the document, or returns the one with the same content in the same graph
   * (`created: false`): an upload sent twice is stored once.
   */
  async createOrGet(document: NewDocument, db: Db = this.database.db): Promise<{ document: DocumentRow; created: boolean }> {
    const nameKey = document.kind === 'document' ? (documentNameKey(document.name) ?? null) : null;
    const [inserted] = await db.insert(documents).values({ ...document, nameKey }).onConflictDoNothing().returning();
    if (inserted) return { document: inserted, created: true };
    const [existing] = await db
      .select()
      .from(documents)
      .where(
        and(
          eq(documents.tenantId, document.tenantId),
          eq(documents.graphId, document.graphId),
          eq(documents.contentHash, document.contentHash),
        ),
      );
    return { document: existing, created: false };
  }

  async get(tenantId: string, documentId: number, db: Db = this.database.db): Promise<DocumentRow | undefined> {
    const [row] = await db
      .select()
      .from(documents)
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)));
    return row;
  }

  /** Newest first; only documents in `page.status` when it is given. */
  async list(tenantId: string, graphId: number, page: { limit: number; offset: number; status?: DocumentStatus }): Promise<DocumentRow[]> {
    return this.database.db
      .select()
      .from(documents)
      .where(
        and(
          eq(documents.tenantId, tenantId),
          eq(documents.graphId, graphId),
          page.status === undefined ? undefined : eq(documents.status, page.status),
        ),
      )
      .orderBy(desc(documents.createdAt), desc(documents.id))
      .limit(page.limit)
      .offset(page.offset);
  }

  async setStatus(
    tenantId: string,
    documentId: number,
    status: DocumentStatus,
    changes: { statusReason?: string | null; chunksTotal?: number; processedAt?: Date | null } = {},
    db: Db = this.database.db,
  ): Promise<void> {
    await db
      .update(documents)
      .set({ status, updatedAt: new Date(), ...changes })
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)));
  }

  /**
   * Takes the lease on ingesting a document that is not processed yet, when no one holds it or
   * its holder's lease has passed: one statement, so of two claims at once one wins. The lease
   * is scoped by the document's key (tenant, id), and a document belongs to one dataset graph.
   */
  async claimIngestion(tenantId: string, documentId: number, holder: string, leaseMs: number, db: Db = this.database.db): Promise<IngestionClaim> {
    // The self-join reads the row as it was, to tell a takeover from a first claim.
    const [claimed] = await queryRows<{ previous: Date | string | null }>(
      db,
      sql`UPDATE documents AS d
             SET lease_holder = ${holder}, lease_expires_at = ${nowPlus(leaseMs)}
            FROM documents AS was
           WHERE d.tenant_id = ${tenantId} AND d.id = ${documentId}
             AND was.tenant_id = d.tenant_id AND was.id = d.id
             AND d.status <> 'processed'
             AND (d.lease_expires_at IS NULL OR d.lease_expires_at < now())
       RETURNING was.lease_expires_at AS previous`,
    );
    if (claimed) return { state: 'claimed', tookOver: claimed.previous !== null };
    const [row] = await db
      .select({ status: documents.status })
      .from(documents)
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)));
    if (!row) return { state: 'gone' };
    return { state: row.status === 'processed' ? 'processed' : 'held' };
  }

  /** Extends the holder's lease to now + leaseMs; false when another holder has it now (stop). */
  async renewIngestionLease(tenantId: string, documentId: number, holder: string, leaseMs: number): Promise<boolean> {
    const rows = await this.database.db
      .update(documents)
      .set({ leaseExpiresAt: nowPlus(leaseMs) })
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId), eq(documents.leaseHolder, holder)))
      .returning({ id: documents.id });
    return rows.length === 1;
  }

  /**
   * Ends the holder's lease, so a waiting retry finds the document processed, or (with
   * `failure`) failed and free to take over at once. Nothing when another holder has it now:
   * the outcome is the new holder's to record.
   */
  async endIngestionLease(tenantId: string, documentId: number, holder: string, failure?: { statusReason: string }): Promise<boolean> {
    const rows = await this.database.db
      .update(documents)
      .set({
        leaseHolder: null,
        leaseExpiresAt: null,
        ...(failure ? { status: 'failed' as const, statusReason: failure.statusReason, updatedAt: new Date() } : {}),
      })
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId), eq(documents.leaseHolder, holder)))
      .returning({ id: documents.id });
    return rows.length === 1;
  }

  /** Counts a chunk as done; called inside the chunk's own transaction. */
  async chunkDone(tenantId: string, documentId: number, db: Db): Promise<void> {
    await db
      .update(documents)
      .set({ chunksDone: sql`${documents.chunksDone} + 1`, updatedAt: new Date() })
      .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)));
  }

  async counts(tenantId: string, documentIds: number[]): Promise<Map<number, DocumentCounts>> {
    const result = new Map<number, DocumentCounts>(documentIds.map((id) => [id, { chunks: 0, entities: 0, edges: 0 }]));
    if (documentIds.length === 0) return result;
    const rows = await queryRows<{ document_id: number; kind: string; n: number }>(
      this.database.db,
      sql`SELECT document_id, 'chunks' AS kind, count(*)::int AS n FROM chunks
            WHERE tenant_id = ${tenantId} AND document_id IN ${documentIds} GROUP BY document_id
          UNION ALL
          SELECT document_id, 'entities', count(*)::int FROM entity_documents
            WHERE tenant_id = ${tenantId} AND document_id IN ${documentIds} GROUP BY document_id
          UNION ALL
          SELECT document_id, 'edges', count(*)::int FROM edge_documents
            WHERE tenant_id = ${tenantId} AND document_id IN ${documentIds} GROUP BY document_id`,
    );
    for (const row of rows) {
      const counts = result.get(Number(row.document_id));
      if (counts) counts[row.kind as keyof DocumentCounts] = Number(row.n);
    }
    return result;
  }

  /**
   * Deletes a document with its chunks (and their vectors) and every entity or edge that no
   * other document supports. Shared ones stay, minus this document's provenance (cascaded).
   * One transaction: a reader sees the graph before or after, never half of it.
   */
  async delete(tenantId: string, documentId: number): Promise<boolean> {
    return this.database.db.transaction(async (tx) => {
      const [doc] = await tx
        .select({ id: documents.id })
        .from(documents)
        .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)))
        .for('update');
      if (!doc) return false;
      const edgeIds = (
        await tx
          .select({ id: edgeDocuments.edgeId })
          .from(edgeDocuments)
          .where(and(eq(edgeDocuments.tenantId, tenantId), eq(edgeDocuments.documentId, documentId)))
      ).map((r) => r.id);
      const entityIds = (
        await tx
          .select({ id: entityDocuments.entityId })
          .from(entityDocuments)
          .where(and(eq(entityDocuments.tenantId, tenantId), eq(entityDocuments.documentId, documentId)))
      ).map((r) => r.id);
      // The edges it was the artifact of outlive it (other documents may support them); the key
      // does not clear the reference itself (migration 0031: distributable on Citus).
      await tx
        .update(edges)
        .set({ artifactId: null })
        .where(and(eq(edges.tenantId, tenantId), eq(edges.artifactId, documentId)));
      const [deleted] = await tx
        .delete(documents)
        .where(and(eq(documents.tenantId, tenantId), eq(documents.id, documentId)))
        .returning({ textBytes: sql<number>`octet_length(${documents.text})` });
      await freeStoredText(tx, tenantId, Number(deleted?.textBytes ?? 0));
      if (edgeIds.length > 0) {
        await tx
          .delete(edges)
          .where(
            and(
              eq(edges.tenantId, tenantId),
              inArray(edges.id, edgeIds),
              sql`NOT EXISTS (SELECT 1 FROM edge_documents d WHERE d.tenant_id = ${edges.tenantId} AND d.edge_id = ${edges.id})`,
            ),
          );
      }
      if (entityIds.length > 0) {
        await tx
          .delete(entities)
          .where(
            and(
              eq(entities.tenantId, tenantId),
              inArray(entities.id, entityIds),
              sql`NOT EXISTS (SELECT 1 FROM entity_documents d WHERE d.tenant_id = ${entities.tenantId} AND d.entity_id = ${entities.id})`,
            ),
          );
      }
      return true;
    });
  }
}
