import { Global, Module } from '@nestjs/common';
import { DocumentsService } from './documents/documents.service';
import { RememberService } from './gb/remember.service';
import { GraphWriter } from './graph/graph-writer';
import { DocumentIngester } from './pipeline/document-ingester';
import { IngestJobHandler } from './pipeline/ingest-job';
import { IngestWorker } from './pipeline/ingest-worker';
import { JobQueue } from './queue';

/** Ingestion: documents and gb remember into the graph, through the durable job queue. */
@Global()
@Module({
  providers: [JobQueue, GraphWriter, DocumentIngester, IngestJobHandler, IngestWorker, DocumentsService, RememberService],
  exports: [JobQueue, DocumentIngester, IngestWorker, DocumentsService, RememberService],
})
export class IngestModule {}
