import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@loci/common';
import { ChunkRecord, DocumentsRepository, EntitySummary, FactRecord, GraphBrowseRepository, GraphsRepository, TakenFrom } from '@loci/db';
import { Job, JobQueue } from '@loci/ingest';

type Page = { limit: number; offset: number };

/**
 * What a document's page shows besides the document itself: its passages in order, the entities
 * and facts taken from it (or from one passage), and its ingestion jobs. Documents of the tenant's
 * default graph only, as /v1/documents sees them; any other id is not found.
 */
@Injectable()
export class DocumentContentsService {
  constructor(
    private readonly graphs: GraphsRepository,
    private readonly documents: DocumentsRepository,
    private readonly browse: GraphBrowseRepository,
    private readonly queue: JobQueue,
  ) {}

  /** A page of passages from `offset`, or the page that holds the chunk `pageOf`. */
  async chunks(tenantId: string, documentId: number, page: { limit: number; offset?: number; pageOf?: number }): Promise<{ chunks: ChunkRecord[]; offset: number }> {
    const graphId = await this.graphOf(tenantId, documentId);
    let offset = page.offset ?? 0;
    if (page.pageOf !== undefined) {
      const position = await this.browse.chunkPosition(tenantId, graphId, documentId, page.pageOf);
      if (position === undefined) throw new NotFoundError('No such chunk in this document.');
      offset = Math.floor(position / page.limit) * page.limit;
    }
    return { chunks: await this.browse.chunksOfDocument(tenantId, graphId, documentId, { limit: page.limit, offset }), offset };
  }

  async entities(tenantId: string, from: TakenFrom, page: Page): Promise<EntitySummary[]> {
    return this.browse.entitiesTakenFrom(tenantId, await this.graphOf(tenantId, from.documentId), from, page);
  }

  async facts(tenantId: string, from: TakenFrom, page: Page): Promise<FactRecord[]> {
    return this.browse.factsTakenFrom(tenantId, await this.graphOf(tenantId, from.documentId), from, page);
  }

  async jobs(tenantId: string, documentId: number): Promise<Job[]> {
    await this.graphOf(tenantId, documentId);
    return this.queue.ofDocument(tenantId, documentId);
  }

  private async graphOf(tenantId: string, documentId: number): Promise<number> {
    const document = await this.documents.get(tenantId, documentId);
    const graph = await this.graphs.defaultGraph(tenantId);
    if (!document || document.graphId !== graph.id) throw new NotFoundError('No such document.');
    return graph.id;
  }
}
