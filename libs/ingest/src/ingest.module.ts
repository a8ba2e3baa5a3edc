import { Global, Module } from '@nestjs/common';
import { LOCAL_TEXT_WORK } from '@loci/llm';
import { BulkLoadService } from './bulk/bulk-load.service';
import { CpuPool } from './cpu/cpu-pool';
import { DocumentsService } from './documents/documents.service';
import { RememberService } from './gb/remember.service';
import { GeoBackfill } from './geo/geo-backfill';
import { GraphWriter } from './graph/graph-writer';
import { DocumentIngester } from './pipeline/document-ingester';
import { IngestJobHandler } from './pipeline/ingest-job';
import { IngestWorker } from './pipeline/ingest-worker';
import { JobQueue } from './queue';
import { TenantBacklogs } from './queue/tenant-backlog';
import { IngestionQuotas } from './quotas/ingestion-quotas';
import { GraphReembedder } from './reembed/graph-reembedder';
import { OfflineVectorsMover } from './reembed/offline-vectors-mover';

/** Ingestion: documents and gb remember into the graph, through the durable job queue. */
@Global()
@Module({
  providers: [
    CpuPool,
    // The model layer's offline stages run on the same threads (StageRunner takes it if present).
    { provide: LOCAL_TEXT_WORK, useExisting: CpuPool },
    JobQueue,
    TenantBacklogs,
    GraphWriter,
    DocumentIngester,
    IngestJobHandler,
    IngestWorker,
    DocumentsService,
    RememberService,
    IngestionQuotas,
    GraphReembedder,
    OfflineVectorsMover,
    BulkLoadService,
    GeoBackfill,
  ],
  exports: [CpuPool, LOCAL_TEXT_WORK, JobQueue, TenantBacklogs, DocumentIngester, IngestWorker, DocumentsService, RememberService, OfflineVectorsMover, BulkLoadService, GeoBackfill],
})
export class IngestModule {}
