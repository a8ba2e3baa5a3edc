import { Inject, Injectable } from '@nestjs/common';
import { ValidationError } from '@loci/common';
import { Database, DATABASE, DocumentsRepository, errorSummary, EdgeFacts, EntityFacts, GraphReadsRepository, GraphsRepository } from '@loci/db';
import { ModelRouter, ReasoningLevel, UnknownModelError } from '@loci/llm';
import { contentHash } from '../documents/documents.service';
import { emptyChanges, GraphChanges } from '../graph/graph-writer';
import { DocumentIngester } from '../pipeline/document-ingester';

export interface RememberInput {
  userId: string;
  text: string;
  dataset: string;
  sessionId?: string;
  validAt?: Date;
  reasoning?: { extract?: ReasoningLevel; summarize?: ReasoningLevel };
  models?: { extract?: string; summarize?: string };
}

export interface RememberResult {
  artifactId: number;
  dataset: string;
  sessionId?: string;
  /** True when this exact text was already remembered in the dataset: nothing new was written. */
  duplicate: boolean;
  entities: Array<{ row: EntityFacts; change: 'created' | 'updated' | 'matched' }>;
  edges: Array<{ row: EdgeFacts; change: 'created' | 'updated' | 'superseded' | 'ended' }>;
}

/**
 * gb `remember`: puts a user's text into their dataset graph (created on first use) and
 * returns once it is there, with what it changed. The same pipeline as documents, run inline.
 */
@Injectable()
export class RememberService {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly graphs: GraphsRepository,
    private readonly documents: DocumentsRepository,
    private readonly reads: GraphReadsRepository,
    private readonly ingester: DocumentIngester,
    private readonly router: ModelRouter,
  ) {}

  async remember(tenantId: string, requestId: string, input: RememberInput): Promise<RememberResult> {
    this.checkModels(input.models);
    const { document, created } = await this.database.db.transaction(async (tx) => {
      const graph = await this.graphs.gbGraph(tenantId, input.userId, input.dataset, tx);
      return this.documents.createOrGet(
        {
          tenantId,
          graphId: graph.id,
          kind: 'gb_text',
          name: `remember ${new Date().toISOString()}`,
          mimeType: 'text/plain',
          contentHash: contentHash(input.text),
          text: input.text,
          documentDate: input.validAt ?? null,
          sessionId: input.sessionId ?? null,
        },
        tx,
      );
    });
    let changes: GraphChanges = emptyChanges();
    const duplicate = !created && document.status === 'processed';
    if (!duplicate) {
      try {
        changes = await this.ingester.ingest(tenantId, document.id, requestId, { models: input.models, reasoning: input.reasoning });
      } catch (error) {
        await this.documents.setStatus(tenantId, document.id, 'failed', {
          // Not error.message: a failed statement's message carries its parameters (the text).
          statusReason: errorSummary(error, 2).slice(0, 500),
        });
        throw error;
      }
    }
    return { artifactId: document.id, dataset: input.dataset, sessionId: input.sessionId, duplicate, ...(await this.describe(tenantId, changes)) };
  }

  /** A model the request names must exist and have a price (400 otherwise, per the contract). */
  private checkModels(models: RememberInput['models']): void {
    for (const [stage, name] of Object.entries(models ?? {})) {
      if (!name) continue;
      try {
        this.router.choose(stage as 'extract' | 'summarize', name);
      } catch (error) {
        if (error instanceof UnknownModelError) throw new ValidationError(`models.${stage}: ${error.message}`);
        throw error;
      }
    }
  }

  private async describe(tenantId: string, changes: GraphChanges) {
    const entityChange = new Map<number, 'created' | 'updated' | 'matched'>();
    changes.entities.created.forEach((id) => entityChange.set(id, 'created'));
    changes.entities.updated.forEach((id) => entityChange.has(id) || entityChange.set(id, 'updated'));
    changes.entities.matched.forEach((id) => entityChange.has(id) || entityChange.set(id, 'matched'));
    const edgeChange = new Map<number, 'created' | 'updated' | 'superseded' | 'ended'>();
    changes.edges.created.forEach((id) => edgeChange.set(id, 'created'));
    changes.edges.updated.forEach((id) => edgeChange.has(id) || edgeChange.set(id, 'updated'));
    changes.edges.superseded.forEach((id) => edgeChange.set(id, 'superseded'));
    changes.edges.ended.forEach((id) => edgeChange.has(id) || edgeChange.set(id, 'ended'));
    const [entityRows, edgeRows] = await Promise.all([
      this.reads.entitiesByIds(tenantId, [...entityChange.keys()]),
      this.reads.edgesByIds(tenantId, [...edgeChange.keys()]),
    ]);
    return {
      entities: entityRows.map((row) => ({ row, change: entityChange.get(row.id)! })),
      edges: edgeRows.map((row) => ({ row, change: edgeChange.get(row.id)! })),
    };
  }
}
