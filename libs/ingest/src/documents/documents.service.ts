import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ConflictError, NotFoundError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { Database, DATABASE, Db, DocumentCounts, DocumentRow, DocumentsRepository, GraphsRepository, ReadRouter } from '@loci/db';
import { CpuPool } from '../cpu/cpu-pool';
import { JobQueue } from '../queue';
import { extractUploadText, UploadedFileInput, UploadText } from '../upload';
import { IngestWorker } from '../pipeline/ingest-worker';
import { INGEST_DOCUMENT_JOB, IngestDocumentPayload } from '../pipeline/ingest-job';
import { IngestionQuotas } from '../quotas/ingestion-quotas';

export interface DocumentSubmission {
  name: string;
  text: string;
  mimeType: string;
  documentDate?: Date;
}

export interface DocumentView {
  document: DocumentRow;
  counts: DocumentCounts;
}

/** The tenant's documents: what /v1/documents creates, lists, deletes and retries. */
@Injectable()
export class DocumentsService {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly graphs: GraphsRepository,
    private readonly documents: DocumentsRepository,
    private readonly queue: JobQueue,
    private readonly worker: IngestWorker,
    private readonly cpu: CpuPool,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly quotas: IngestionQuotas,
    private readonly reads: ReadRouter,
  ) {}

  /**
   * The text of an uploaded file; HTML and PDF are parsed on a worker thread. Bounded by what the
   * file expands to (LOCI_UPLOAD_*): past a bound it is refused (413) before anything is stored.
   */
  readUpload(file: UploadedFileInput): Promise<UploadText> {
    return extractUploadText(file, this.cpu, this.settings.ingest.upload);
  }

  /**
   * Stores the document and queues its ingestion in one transaction (no document without its
   * job, no job without its document). The same content sent again returns the first copy, and
   * is not counted again against the ingestion quotas; a new document past one is refused (and
   * rolled back) before its job is queued.
   */
  async submit(tenantId: string, submission: DocumentSubmission): Promise<{ document: DocumentRow; created: boolean }> {
    const result = await this.database.db.transaction(async (tx) => {
      const graph = await this.graphs.defaultGraph(tenantId, tx);
      const stored = await this.documents.createOrGet(
        {
          tenantId,
          graphId: graph.id,
          kind: 'document',
          name: submission.name,
          mimeType: submission.mimeType,
          contentHash: contentHash(submission.text),
          text: submission.text,
          documentDate: submission.documentDate ?? null,
        },
        tx,
      );
      if (stored.created) await this.quotas.admit(tenantId, stored.document.id, tx);
      // A document of a bulk load under way is background work: it waits for ordinary documents.
      if (stored.created) await this.enqueue(tenantId, stored.document.id, tx, graph.ownVectors === 'loading');
      return stored;
    });
    if (result.created) this.worker.wake();
    return result;
  }

  async list(tenantId: string, page: { limit: number; offset: number; status?: DocumentRow['status'] }): Promise<DocumentView[]> {
    const graph = await this.graphs.defaultGraph(tenantId);
    const rows = await this.documents.list(tenantId, graph.id, page);
    const counts = await this.documents.counts(tenantId, rows.map((r) => r.id));
    await this.noteProcessed(rows);
    return rows.map((document) => ({ document, counts: counts.get(document.id)! }));
  }

  async get(tenantId: string, documentId: number): Promise<DocumentView> {
    const document = await this.defaultGraphDocument(tenantId, documentId);
    const counts = await this.documents.counts(tenantId, [document.id]);
    await this.noteProcessed([document]);
    return { document, counts: counts.get(document.id)! };
  }

  async delete(tenantId: string, documentId: number): Promise<void> {
    await this.defaultGraphDocument(tenantId, documentId);
    if (!(await this.documents.delete(tenantId, documentId))) throw new NotFoundError('No such document.');
  }

  /** Queues a failed document again; its chunks already written are kept and skipped. */
  async retry(tenantId: string, documentId: number): Promise<DocumentRow> {
    const document = await this.defaultGraphDocument(tenantId, documentId);
    if (document.status !== 'failed') throw new ConflictError(`Only a failed document can be retried; this one is ${document.status}.`);
    await this.database.db.transaction(async (tx) => {
      await this.documents.setStatus(tenantId, documentId, 'pending', { statusReason: null }, tx);
      await this.enqueue(tenantId, documentId, tx);
    });
    this.worker.wake();
    return (await this.documents.get(tenantId, documentId))!;
  }

  /**
   * A client told a document is processed asks about it next, perhaps at once: this process's
   * reads of its graph then go to a replica that has replayed it (ReadRouter). The worker that
   * processed it may be another process, whose note this process cannot see; the primary's
   * position now is past its commit, since the status read from the primary says it committed.
   * Only a document processed within the time a note is kept is noted (one statement; none
   * without replicas): an older one is on every replica a read may use.
   */
  private async noteProcessed(rows: DocumentRow[]): Promise<void> {
    let latest: { row: DocumentRow; at: Date } | undefined;
    for (const row of rows) {
      if (row.status === 'processed' && row.processedAt && (!latest || row.processedAt > latest.at)) latest = { row, at: row.processedAt };
    }
    if (latest) await this.reads.noteWrite({ tenantId: latest.row.tenantId, graphId: latest.row.graphId }, latest.at);
  }

  /** /v1/documents sees the tenant's default graph only, never gb artifacts. */
  private async defaultGraphDocument(tenantId: string, documentId: number): Promise<DocumentRow> {
    const document = await this.documents.get(tenantId, documentId);
    const graph = await this.graphs.defaultGraph(tenantId);
    if (!document || document.graphId !== graph.id) throw new NotFoundError('No such document.');
    return document;
  }

  private async enqueue(tenantId: string, documentId: number, tx: Db, background = false) {
    const payload: IngestDocumentPayload = { documentId };
    await this.queue.enqueue(tenantId, INGEST_DOCUMENT_JOB, payload, { db: tx, background });
  }
}

/** Identity of a text's content; whitespace at the ends does not make a new document. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text.trim()).digest('hex');
}
