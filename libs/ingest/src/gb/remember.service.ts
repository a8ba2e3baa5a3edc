import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConflictError, NotFoundError, ValidationError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import {
  Database,
  DATABASE,
  DocumentsRepository,
  errorSummary,
  EdgeFacts,
  EntityFacts,
  GraphReadsRepository,
  ReadRouter,
  GraphsRepository,
  IngestionClaim,
} from '@loci/db';
import { ModelRouter, ReasoningLevel, UnknownModelError } from '@loci/llm';
import { contentHash } from '../documents/documents.service';
import { emptyChanges, GraphChanges } from '../graph/graph-writer';
import { DocumentIngester } from '../pipeline/document-ingester';
import { LeaseLostError } from '../queue/job-errors';
import { IngestionQuotas } from '../quotas/ingestion-quotas';

/** A retry of a text waits for the request ingesting it, looking again after this, doubled each time up to the longest. */
const FIRST_LOOK_MS = 100;
const LONGEST_LOOK_MS = 1_000;

/**
 * The same text is still being ingested by an earlier request of the dataset, past the wait
 * (LOCI_REMEMBER_WAIT_MS): 409 with Retry-After; the retry after it is answered as a duplicate
 * once the earlier one is done.
 */
export class RememberInProgressError extends ConflictError {
  override readonly retryAfterSeconds = 5;

  constructor() {
    super('The same text is still being remembered in this dataset by an earlier request; try again shortly.');
  }
}

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
 *
 * One request at a time ingests a text: under a lease on its document (on the store, so API
 * instances on one database agree), renewed while it runs. A retry of the same text in the same
 * dataset (a client that timed out) waits for it and is answered as a duplicate, or takes the
 * text over when the first failed or its process died (its lease passed unrenewed); the
 * ingester resumes after the chunks already written.
 */
@Injectable()
export class RememberService {
  private readonly logger = new Logger('RememberService');

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly graphs: GraphsRepository,
    private readonly documents: DocumentsRepository,
    private readonly reads: GraphReadsRepository,
    private readonly ingester: DocumentIngester,
    private readonly router: ModelRouter,
    private readonly quotas: IngestionQuotas,
    private readonly readRouter: ReadRouter,
  ) {}

  /** `signal`: the client went away; a request waiting for another's ingestion stops waiting. */
  async remember(tenantId: string, requestId: string, input: RememberInput, signal?: AbortSignal): Promise<RememberResult> {
    this.checkModels(input.models);
    const holder = randomUUID();
    const { document, claim } = await this.database.db.transaction(async (tx) => {
      const graph = await this.graphs.gbGraph(tenantId, input.userId, input.dataset, tx);
      const { document, created } = await this.documents.createOrGet(
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
      // Against the ingestion quotas as an upload is; the same text again is not counted twice.
      if (created) await this.quotas.admit(tenantId, document.id, tx);
      // Claimed in the transaction that creates it: a retry sent meanwhile finds it held, never free.
      const claim = await this.documents.claimIngestion(tenantId, document.id, holder, this.settings.ingest.remember.leaseMs, tx);
      return { document, claim };
    });
    const changes = await this.ingestOnce(tenantId, requestId, document.id, holder, claim, input, signal);
    // The client's next query of this dataset must see what it just remembered, even on a replica:
    // the ingester notes what it ingested; a text another request ingested (maybe another API
    // instance's) is noted here.
    if (changes === null) await this.readRouter.noteWrite({ tenantId, graphId: document.graphId });
    return {
      artifactId: document.id,
      dataset: input.dataset,
      sessionId: input.sessionId,
      duplicate: changes === null,
      ...(await this.describe(tenantId, changes ?? emptyChanges())),
    };
  }

  /**
   * Ingests the document while this request holds its lease. Held by another request, it is
   * looked at again until it is processed (null: another request ingested it), or free to take
   * over (that request failed, or its lease passed), for at most LOCI_REMEMBER_WAIT_MS.
   */
  private async ingestOnce(
    tenantId: string,
    requestId: string,
    documentId: number,
    holder: string,
    claim: IngestionClaim,
    input: RememberInput,
    signal?: AbortSignal,
  ): Promise<GraphChanges | null> {
    const { leaseMs, waitMs } = this.settings.ingest.remember;
    const deadline = Date.now() + waitMs;
    for (let pause = FIRST_LOOK_MS; ; pause = Math.min(2 * pause, LONGEST_LOOK_MS)) {
      if (claim.state === 'processed') return null;
      if (claim.state === 'gone') throw new NotFoundError('No such document.');
      if (claim.state === 'claimed') {
        if (claim.tookOver) {
          this.logger.warn(`document ${documentId} of tenant ${tenantId}: its ingestion's lease passed unrenewed; request ${requestId} takes it over`);
        }
        const changes = await this.ingestHeld(tenantId, requestId, documentId, holder, input);
        if (changes) return changes;
        // Lost to a request that took it over: that one finishes it.
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new RememberInProgressError();
      try {
        await sleep(Math.min(pause, left), undefined, { signal });
      } catch (error) {
        signal?.throwIfAborted(); // with the client's reason
        throw error;
      }
      claim = await this.documents.claimIngestion(tenantId, documentId, holder, leaseMs);
    }
  }

  /**
   * The ingestion under this request's lease, renewed every third of it; null when the lease was
   * lost (this process stalled past it and another request took the text over): the ingester
   * stops before its next chunk, and its failure is not recorded (it is the new holder's).
   */
  private async ingestHeld(tenantId: string, requestId: string, documentId: number, holder: string, input: RememberInput): Promise<GraphChanges | null> {
    const { leaseMs } = this.settings.ingest.remember;
    const lost = new AbortController();
    let renewing = false;
    const renewal = setInterval(() => {
      if (renewing || lost.signal.aborted) return;
      renewing = true;
      this.documents
        .renewIngestionLease(tenantId, documentId, holder, leaseMs)
        .then(
          (held) => held || lost.abort(new LeaseLostError(`document ${documentId} of tenant ${tenantId}`)),
          // Unknown, not lost: the lease stands until it passes, and the timer tries again.
          (error: unknown) => this.logger.warn(`renewing the lease of document ${documentId} failed: ${errorSummary(error)}`),
        )
        .finally(() => (renewing = false));
    }, leaseMs / 3);
    renewal.unref();
    try {
      const changes = await this.ingester.ingest(tenantId, documentId, requestId, { models: input.models, reasoning: input.reasoning }, lost.signal);
      await this.documents.endIngestionLease(tenantId, documentId, holder);
      return changes;
    } catch (error) {
      if (lost.signal.aborted) return null;
      await this.documents.endIngestionLease(tenantId, documentId, holder, {
        // Not error.message: a failed statement's message carries its parameters (the text).
        statusReason: errorSummary(error, 2).slice(0, 500),
      });
      throw error;
    } finally {
      clearInterval(renewal);
    }
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
