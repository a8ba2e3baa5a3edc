import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { NotFoundError, questionsInFlight } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import {
  chunkLexicalText,
  Database,
  DATABASE,
  DocumentRow,
  DocumentsRepository,
  errorSummary,
  GraphWritesRepository,
  ReadRouter,
  TableStatisticsKeeper,
  transactionRetryingConflicts,
} from '@loci/db';
import { CallContext, Extraction, ModelGateway, OwnKeysService, ReasoningLevel, StageRunner } from '@loci/llm';
import { LociMetrics } from '@loci/metrics';
import { CpuPool } from '../cpu/cpu-pool';
import { entityNameText, entityText, factText } from '../graph/embedding-texts';
import { emptyChanges, EntityToWrite, GraphChanges, GraphWriter, RelationToWrite } from '../graph/graph-writer';
import { normalizeEntityName } from '../graph/names';
import { Piece } from './pieces';

/** Per-request choices of the remember stages (the gb contract's `models` and `reasoning`). */
export interface RememberStageOptions {
  models?: { extract?: string; summarize?: string };
  reasoning?: { extract?: ReasoningLevel; summarize?: ReasoningLevel };
}

/**
 * Chunks of a document whose model calls and embeddings start before the chunk being written
 * has committed, when a provider serves them: one, so a chunk's writes overlap the wait for
 * the next one's summary and extraction; more would hold more model slots for one document and
 * waste more calls when a chunk fails. The offline extractor and summarizer are CPU work on the
 * cores the writes need, so with them nothing is prepared ahead (measured on 2 cores: 5-26%
 * fewer chunks a second when other work saturated them, up to 40% more when it did not), and
 * several documents at once overlap that work instead (docs/BENCHMARKS.md, "Issue 16:
 * overlapped chunks and worker concurrency").
 */
const CHUNKS_PREPARED_AHEAD = 1;

/** A piece with everything its write needs: what the models said about it, and the vectors. */
interface PreparedPiece {
  piece: Piece;
  summary: string | null;
  entities: Extraction['entities'];
  relations: Extraction['relations'];
  endings: Extraction['endings'];
  chunkVector?: number[];
  summaryVector?: number[];
  nameVectors: number[][];
  textVectors: number[][];
  relationVectors: number[][];
  embeddingModel: string;
}

/**
 * Turns a stored document (an upload or a gb remember text) into graph: chunks with summaries,
 * extraction, vectors, resolution, supersession, provenance. Each chunk commits in its own
 * transaction together with the progress counter, so a crash leaves whole chunks only, and a
 * rerun (a job picked up again after its worker died) continues with the chunks not written.
 *
 * With a provider, a chunk is prepared (summary, extraction, embeddings: nothing that reads
 * the graph) while the chunk before it is being written, and the writes stay one after another
 * in chunk order: a chunk's entity resolution and supersession read the graph inside its own
 * transaction, after every earlier chunk of the document committed, exactly as when nothing
 * overlapped. What was written is always a prefix of the document's chunks.
 */
@Injectable()
export class DocumentIngester {
  private readonly logger = new Logger('DocumentIngester');

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly documents: DocumentsRepository,
    private readonly writes: GraphWritesRepository,
    private readonly writer: GraphWriter,
    private readonly stages: StageRunner,
    private readonly gateway: ModelGateway,
    private readonly ownKeys: OwnKeysService,
    private readonly cpu: CpuPool,
    private readonly statistics: TableStatisticsKeeper,
    private readonly reads: ReadRouter,
    @Optional() private readonly metrics?: LociMetrics,
  ) {}

  /**
   * `signal`: the caller's end of the attempt (a job's lease lost, its runner stopping). Once it
   * aborts, no further chunk is written and the attempt's model calls end; what was written is a
   * prefix the next attempt continues.
   */
  async ingest(
    tenantId: string,
    documentId: number,
    requestId: string,
    options: RememberStageOptions = {},
    signal?: AbortSignal,
  ): Promise<GraphChanges> {
    signal?.throwIfAborted();
    const document = await this.documents.get(tenantId, documentId);
    if (!document) throw new NotFoundError('No such document.');
    // Ends the provider calls of chunks prepared ahead when an earlier chunk fails.
    const stop = new AbortController();
    const ctx = await this.ownKeys.callContext(
      tenantId,
      requestId,
      document.kind === 'gb_text' ? 'remember' : 'ingest',
      documentId,
      { signal: signal ? AbortSignal.any([stop.signal, signal]) : stop.signal },
    );
    const pieces = await this.piecesOf(document);
    await this.documents.setStatus(tenantId, documentId, 'processing', {
      chunksTotal: pieces.filter((p) => p.index !== null).length,
      statusReason: null,
    });
    const written = await this.writes.writtenChunkIndexes(this.database.db, tenantId, documentId);
    const todo = pieces.filter((piece) => piece.index === null || !written.has(piece.index));
    const changes = emptyChanges();
    const ahead = this.waitsOnProviders(options) ? CHUNKS_PREPARED_AHEAD : 0;
    const prepared: Array<Promise<PreparedPiece>> = [];
    try {
      for (let i = 0; i < todo.length; i++) {
        signal?.throwIfAborted(); // stopped: nothing more is asked for
        while (prepared.length < Math.min(todo.length, i + 1 + ahead)) {
          const next = this.preparePiece(ctx, document, todo[prepared.length], options);
          // Its failure is thrown when its turn to be written comes (or settled below).
          next.catch(() => undefined);
          prepared.push(next);
        }
        const piece = await prepared[i];
        // A chunk's write is tens of statements on the database that answers every tenant's
        // questions, where no nice value reaches: it waits while questions run (at most
        // LOCI_BATCH_PAUSE_MAX_MS), holding nothing (questions-in-flight.ts).
        await questionsInFlight.quiet(this.settings.ingest.batchPauseMaxMs);
        signal?.throwIfAborted();
        mergeChanges(changes, await this.writePiece(document, piece));
        if (todo[i].index !== null) this.metrics?.chunkIngested(document.kind);
        // In the background: the planner needs statistics of what was just written (a fresh
        // tenant's questions are planned badly without them), and the keeper analyzes rarely.
        this.statistics.noteWrites({ tenantId: document.tenantId, graphId: document.graphId });
      }
    } catch (error) {
      // The chunks after a failed one are not written by this attempt: their calls end, and
      // the attempt ends only when nothing of it runs any more (a retry starts from the same
      // chunk, with no call of this attempt still in flight beside it).
      stop.abort();
      await Promise.allSettled(prepared);
      throw error;
    }
    await this.documents.setStatus(tenantId, documentId, 'processed', { processedAt: new Date(), statusReason: null });
    await this.noteProcessed(document);
    return changes;
  }

  /**
   * The graph's questions and browsing in this process read a replica that has replayed the
   * document (ReadRouter; nothing without replicas). A worker in its own process has none, and
   * the API notes the document when it reports it processed (DocumentsService). A failed note
   * fails nothing: the document is processed, and a read of it may lag by the replica bound.
   */
  private async noteProcessed(document: DocumentRow): Promise<void> {
    try {
      await this.reads.noteWrite({ tenantId: document.tenantId, graphId: document.graphId });
    } catch (error) {
      this.logger.warn(`document ${document.id}: its write position was not noted (${errorSummary(error)}); reads may lag by LOCI_REPLICA_MAX_LAG_MS`);
    }
  }

  /** Whether a chunk's summary or extraction is a provider call (a request's model, else the stage's). */
  private waitsOnProviders(options: RememberStageOptions): boolean {
    try {
      return (['extract', 'summarize'] as const).some((stage) => this.gateway.router.choose(stage, options.models?.[stage]).provider !== 'local');
    } catch {
      return false; // a model the router refuses: the first stage call reports it, as it always did
    }
  }

  /** Chunking a megabyte takes seconds of CPU: on a worker thread, never the request thread. */
  private piecesOf(document: DocumentRow): Promise<Piece[]> {
    const { chunkTokens, chunkOverlapTokens } = this.settings.ingest;
    return this.cpu.run('pieces', document.text, { keepWholeIfFits: document.kind === 'gb_text', chunkTokens, chunkOverlapTokens });
  }

  /** The model calls and embeddings of a piece: reads nothing of the graph, writes only the ledger. */
  private async preparePiece(ctx: CallContext, document: DocumentRow, piece: Piece, options: RememberStageOptions): Promise<PreparedPiece> {
    const referenceDate = document.documentDate ?? document.loadedAt;
    // Both settled before either's failure is thrown: an attempt ends only when none of its calls
    // runs any more (Promise.all would reject at the first, the other still in flight and its
    // ledger row still pending).
    const [summary, extraction] = settledOrThrow(
      await Promise.allSettled([
        piece.index === null
          ? Promise.resolve(null)
          : this.stages.summarize(ctx, piece.text, { model: options.models?.summarize, reasoning: options.reasoning?.summarize }),
        this.stages.extract(ctx, piece.text, {
          documentDate: referenceDate,
          model: options.models?.extract,
          reasoning: options.reasoning?.extract,
        }),
      ]),
    );
    const entities = withRelationEndpoints(extraction);
    const texts = [
      ...(piece.index === null ? [] : [piece.text]),
      ...(summary ? [summary] : []),
      ...entities.map((e) => entityNameText(e.name)),
      ...entities.map((e) => entityText(e.name, e.description)),
      ...extraction.relations.map((r) => factText(r.source, r.relation, r.target, r.description)),
    ];
    const { vectors, choice } = texts.length > 0 ? await this.gateway.embed(ctx, texts) : { vectors: [], choice: undefined };
    let at = 0;
    const take = (n: number) => vectors.slice(at, (at += n));
    const [chunkVector] = piece.index === null ? [undefined] : take(1);
    const [summaryVector] = summary ? take(1) : [undefined];
    const nameVectors = take(entities.length);
    const textVectors = take(entities.length);
    const relationVectors = take(extraction.relations.length);
    const embeddingModel = choice?.spec ?? '';
    return {
      piece,
      summary,
      entities,
      relations: extraction.relations,
      endings: extraction.endings,
      chunkVector,
      summaryVector,
      nameVectors,
      textVectors,
      relationVectors,
      embeddingModel,
    };
  }

  /** One transaction: the chunk row, its graph, its provenance and the progress counter. */
  private writePiece(document: DocumentRow, prepared: PreparedPiece): Promise<GraphChanges> {
    const { piece, summary, entities, relations, endings, chunkVector, summaryVector, nameVectors, textVectors, relationVectors, embeddingModel } =
      prepared;
    const referenceDate = document.documentDate ?? document.loadedAt;
    // Writers of the same names wait for each other; one that still loses a lock conflict
    // (a deadlock with a document being deleted, say) runs its chunk again.
    return transactionRetryingConflicts(this.database.db, async (tx) => {
      const vectorTier = await this.writes.vectorTierForWrite(tx, document.tenantId, document.graphId);
      const chunk =
        piece.index === null
          ? undefined
          : await this.writes.insertChunk(tx, {
              tenantId: document.tenantId,
              graphId: document.graphId,
              documentId: document.id,
              index: piece.index,
              text: piece.text,
              tokenCount: piece.tokenCount,
              summary,
              embedding: chunkVector,
              summaryEmbedding: summaryVector ?? null,
              embeddingModel,
            }, chunkLexicalText(document, piece.text), vectorTier);
      const changes = await this.writer.write(tx, {
        tenantId: document.tenantId,
        graphId: document.graphId,
        documentId: document.id,
        chunkId: chunk?.id,
        referenceDate,
        entities: entities.map<EntityToWrite>((e, i) => ({ ...e, nameVector: nameVectors[i], textVector: textVectors[i] })),
        relations: relations.map<RelationToWrite>((r, i) => ({ ...r, vector: relationVectors[i] })),
        endings,
        embeddingModel,
        resolutionThreshold: this.settings.ingest.entityMatchThreshold,
        vectorTier,
      });
      if (chunk) await this.documents.chunkDone(document.tenantId, document.id, tx);
      return changes;
    });
  }
}

/** Entities a relation names but the extraction did not list get a bare entity of their own. */
function withRelationEndpoints(extraction: Extraction) {
  const known = new Set(extraction.entities.map((e) => normalizeEntityName(e.name)));
  const entities = [...extraction.entities];
  for (const relation of extraction.relations) {
    for (const name of [relation.source, relation.target]) {
      const key = normalizeEntityName(name);
      if (key && !known.has(key)) {
        known.add(key);
        entities.push({ name, type: 'concept', description: '' });
      }
    }
  }
  return entities;
}

function mergeChanges(into: GraphChanges, from: GraphChanges): void {
  into.entities.created.push(...from.entities.created);
  into.entities.updated.push(...from.entities.updated.filter((id) => !into.entities.updated.includes(id)));
  into.entities.matched.push(...from.entities.matched.filter((id) => !into.entities.matched.includes(id)));
  into.edges.created.push(...from.edges.created);
  into.edges.updated.push(...from.edges.updated.filter((id) => !into.edges.updated.includes(id)));
  into.edges.superseded.push(...from.edges.superseded);
  into.edges.ended.push(...from.edges.ended);
}

/** The values of settled promises, or the first one's rejection. */
function settledOrThrow<T extends readonly unknown[]>(results: { [K in keyof T]: PromiseSettledResult<T[K]> }): T {
  for (const result of results) if (result.status === 'rejected') throw result.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
