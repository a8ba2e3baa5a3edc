import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Database, DATABASE, ReembedRepository, ReembedScope, ReembedTable, RowKey } from '@loci/db';
import { CallContext, ModelGateway, ModelRouter, OwnKeysService } from '@loci/llm';
import { entityNameText, entityText, factText } from '../graph/embedding-texts';

export interface ReembedOptions extends ReembedScope {
  /** Rows read, embedded and written at a time (one embeddings call a page). */
  pageSize?: number;
  /** Called after each page is written. */
  onProgress?: (progress: ReembedProgress) => void;
  /** Stops the run between pages (throwing the signal's reason); what was written stays moved. */
  signal?: AbortSignal;
  /** VACUUM the tables it moved rows of at the end (default true); a caller running many scopes does it once. */
  vacuum?: boolean;
  /**
   * Rows a write statement (default: the whole page). Each row's new vectors are HNSW insertions;
   * on the embedded store they run on the thread that answers requests, for as long as the
   * statement lasts.
   */
  rowsAStatement?: number;
}

export interface ReembedProgress {
  table: ReembedTable;
  done: number;
  total: number;
}

export interface ReembedReport {
  /** The embedder the rows now record (`provider:model`). */
  model: string;
  chunks: number;
  entities: number;
  edges: number;
  /** What the embeddings calls cost, as written to the inference ledger. */
  costMicros: number;
}

const DEFAULT_PAGE_SIZE = 100;

/**
 * Moves a graph's vectors (chunks: text and summary; entities: name + description and name;
 * facts) to the configured embedder, page by page. Only rows not already recorded under that
 * embedder are read, so a second run does nothing and a stopped run continues where it
 * stopped. Calls go through the model gateway like ingestion's, metered in the inference
 * ledger and held to the tenant's caps (`ingest` work, billed as the tenant's ingestion is).
 *
 * Safe beside a serving API: searches compare a question only with rows of its own embedder,
 * so while a graph is half moved, questions find fewer rows, never incomparable ones.
 */
@Injectable()
export class GraphReembedder {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly rows: ReembedRepository,
    private readonly router: ModelRouter,
    private readonly gateway: ModelGateway,
    private readonly ownKeys: OwnKeysService,
  ) {}

  /** The embedder rows are moved to: what ingestion and questions use now. */
  targetModel(): string {
    return this.router.choose('embed').spec;
  }

  async run(options: ReembedOptions = {}): Promise<ReembedReport> {
    if (options.graphId !== undefined && options.tenantId === undefined) throw new RangeError('a graph is named within its tenant');
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    const model = this.targetModel();
    const scope: ReembedScope = { tenantId: options.tenantId, graphId: options.graphId, onlyOfflineEmbedders: options.onlyOfflineEmbedders };
    const contexts = new Map<string, CallContext>();
    const runId = randomUUID();
    const report: ReembedReport = { model, chunks: 0, entities: 0, edges: 0, costMicros: 0 };
    const { db } = this.database;

    const embed = async (tenantId: string, texts: string[]): Promise<number[][]> => {
      let ctx = contexts.get(tenantId);
      if (!ctx) contexts.set(tenantId, (ctx = await this.ownKeys.callContext(tenantId, `reembed:${runId}`, 'ingest')));
      const { vectors, choice, costMicros } = await this.gateway.embed(ctx, texts);
      // The router's choice is fixed at boot; a difference would write vectors under a wrong name.
      if (choice.spec !== model) throw new Error(`embedded by ${choice.spec}, expected ${model}`);
      report.costMicros += costMicros;
      return vectors;
    };

    /** Pages of one table, each embedded (grouped by tenant: each pays for its own) and written. */
    const move = async <Row extends RowKey>(
      table: ReembedTable,
      read: (after: RowKey | null) => Promise<Row[]>,
      textsOf: (row: Row) => string[],
      write: (rows: Row[], vectors: number[][][]) => Promise<void>,
    ): Promise<number> => {
      const total = await this.rows.countToReembed(db, table, scope, model);
      let done = 0;
      let after: RowKey | null = null;
      for (;;) {
        options.signal?.throwIfAborted();
        const page = await read(after);
        if (page.length === 0) break;
        const vectorsOfRows: number[][][] = [];
        for (const group of byTenant(page)) {
          const texts = group.map(textsOf);
          const flat = await embed(group[0].tenantId, texts.flat());
          let at = 0;
          for (const rowTexts of texts) vectorsOfRows.push(flat.slice(at, (at += rowTexts.length)));
        }
        const slice = options.rowsAStatement ?? page.length;
        for (let at = 0; at < page.length; at += slice) {
          await write(page.slice(at, at + slice), vectorsOfRows.slice(at, at + slice));
        }
        done += page.length;
        after = { tenantId: page[page.length - 1].tenantId, id: page[page.length - 1].id };
        options.onProgress?.({ table, done, total: Math.max(total, done) });
      }
      return done;
    };

    report.chunks = await move(
      'chunks',
      (after) => this.rows.chunksToReembed(db, scope, model, after, pageSize),
      (chunk) => (chunk.summary ? [chunk.text, chunk.summary] : [chunk.text]),
      (page, vectors) =>
        this.rows.setChunkVectors(
          db,
          model,
          page.map((chunk, i) => ({ tenantId: chunk.tenantId, id: chunk.id, embedding: vectors[i][0], summaryEmbedding: vectors[i][1] ?? null })),
        ),
    );
    report.entities = await move(
      'entities',
      (after) => this.rows.entitiesToReembed(db, scope, model, after, pageSize),
      (entity) => [entityText(entity.name, entity.description), entityNameText(entity.name)],
      (page, vectors) =>
        this.rows.setEntityVectors(
          db,
          model,
          page.map((entity, i) => ({ tenantId: entity.tenantId, id: entity.id, embedding: vectors[i][0], nameEmbedding: vectors[i][1] })),
        ),
    );
    report.edges = await move(
      'edges',
      (after) => this.rows.edgesToReembed(db, scope, model, after, pageSize),
      (edge) => [factText(edge.sourceName, edge.relation, edge.targetName, edge.description)],
      (page, vectors) =>
        this.rows.setEdgeVectors(db, model, page.map((edge, i) => ({ tenantId: edge.tenantId, id: edge.id, embedding: vectors[i][0] }))),
    );
    if (options.vacuum ?? true) await this.rows.vacuum(db, (['chunks', 'entities', 'edges'] as const).filter((table) => report[table] > 0));
    return report;
  }
}

/** Consecutive runs of one tenant's rows (a page is in tenant order). */
function byTenant<Row extends RowKey>(rows: Row[]): Row[][] {
  const groups: Row[][] = [];
  for (const row of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0].tenantId === row.tenantId) last.push(row);
    else groups.push([row]);
  }
  return groups;
}
