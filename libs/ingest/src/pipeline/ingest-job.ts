import { Injectable, Logger } from '@nestjs/common';
import { LimitExceededError, NotFoundError } from '@loci/common';
import { databaseMessage, DocumentsRepository, isTransactionConflict } from '@loci/db';
import { ModelCallError } from '@loci/llm';
import { CpuTaskLimitError } from '../cpu/cpu-task-errors';
import { DeferJobError, describeError, Job, JobContext, NonRetryableJobError, TransientJobError } from '../queue';
import { DocumentIngester } from './document-ingester';

export const INGEST_DOCUMENT_JOB = 'ingest_document';

export interface IngestDocumentPayload {
  documentId: number;
}

/**
 * The queue's handler for documents. A model error has already been retried by the model
 * layer, and a step past the CPU pool's bounds (time, a thread's heap) would end the same way
 * again, so either fails the document at once with its reason; a lost lock conflict (deadlock) is
 * retried without using an attempt; other errors (the store briefly unreachable) are retried
 * by the queue, and the document fails when attempts run out.
 * Each attempt has its own request id, so every model call of every attempt is in the ledger.
 */
@Injectable()
export class IngestJobHandler {
  private readonly logger = new Logger('IngestJob');

  constructor(
    private readonly ingester: DocumentIngester,
    private readonly documents: DocumentsRepository,
  ) {}

  async handle(job: Job, context: JobContext): Promise<void> {
    const { documentId } = job.payload as IngestDocumentPayload;
    try {
      // The job's signal ends the attempt: its lease went to another worker, or the runner is
      // stopping past its grace. No chunk is written after that and its model calls end.
      await this.ingester.ingest(job.tenantId, documentId, `job:${job.id}:${job.attempts}`, {}, context.signal);
    } catch (error) {
      // Stopped, not failed: whatever ended it (an aborted model call, say) says nothing about the
      // document. The runner discards a lost job's result and puts a stopped one back in the queue.
      if (context.signal.aborted) throw error;
      if (error instanceof NotFoundError) return; // deleted while queued: nothing to do
      if (error instanceof LimitExceededError) {
        // Over a cost cap: not a failure. The document waits, and resumes by itself when the
        // window resets or an operator raises the cap (IngestWorker resumes deferred jobs).
        const reason = `deferred: ${error.body.error.replace(/_/g, ' ')}`;
        await this.documents.setStatus(job.tenantId, documentId, 'deferred', { statusReason: reason });
        throw new DeferJobError(reason);
      }
      if (isTransactionConflict(error)) {
        // Lost a lock conflict with another writer even after the chunk's own retries: says
        // nothing about the document, so it does not count toward failing it.
        const reason = `transaction conflict: ${databaseMessage(error)}`;
        this.logger.warn(`document ${documentId} of tenant ${job.tenantId}: ${reason} (will retry)`);
        throw new TransientJobError(reason, { cause: error });
      }
      const final = error instanceof ModelCallError || error instanceof CpuTaskLimitError || job.attempts >= job.maxAttempts;
      // A bound's message is written for the tenant; other errors say what failed where.
      const reason = error instanceof CpuTaskLimitError ? error.message : describeError(error).slice(0, 500);
      this.logger.warn(`document ${documentId} of tenant ${job.tenantId}: ${reason}${final ? '' : ' (will retry)'}`);
      if (!final) throw error;
      await this.documents.setStatus(job.tenantId, documentId, 'failed', { statusReason: reason });
      throw new NonRetryableJobError(reason, { cause: error });
    }
  }
}
