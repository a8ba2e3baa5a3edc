import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import {
  Database,
  DATABASE,
  errorSummary,
  OFFLINE_EMBEDDER_PREFIX,
  ReembedRepository,
  ReembedTable,
  TenantsRepository,
  vectorRowsAStatement,
} from '@loci/db';
import { Settings, SETTINGS } from '@loci/config';
import { GraphReembedder } from './graph-reembedder';

/** What one pass moved, tenant by tenant added up. */
export interface OfflineVectorsMove {
  model: string;
  chunks: number;
  entities: number;
  edges: number;
  /** Tenants whose rows could not be moved this time (logged; the next start tries again). */
  failedTenants: number;
}

const TENANTS_A_PAGE = 100;
/** Rows embedded at a time (one embeddings call, one ledger row). */
const ROWS_A_PAGE = 25;
/**
 * Searches compare a question only with rows of the configured embedder, so a store whose
 * offline embedder changed (LOCI_LOCAL_EMBEDDING_DIM, or LOCI_EMBED_MODEL from one `local:`
 * model to another) would find nothing it held until someone ran `loci reembed`. The offline
 * embedder costs nothing, so the worker does it by itself when it starts: every row another
 * offline embedder wrote moves to the configured one, page by page, while the API serves
 * (questions find the moved rows at once and the others after; never vectors of two embedders
 * compared). Rows a paid model wrote are never touched, and nothing moves when the configured
 * embedder is not an offline one. docs/decisions/0006-offline-vectors-move-themselves.md, "Vectors of another offline embedder move
 * by themselves".
 *
 * Two processes starting together both move; each page's write skips rows already moved, so
 * the second only repeats reads. A process stopped mid-way leaves rows of both embedders, and
 * the next start goes on.
 */
@Injectable()
export class OfflineVectorsMover implements OnApplicationShutdown {
  private readonly logger = new Logger('OfflineVectorsMover');
  private readonly stopping = new AbortController();
  private pass?: Promise<OfflineVectorsMove | null>;

  constructor(
    @Inject(DATABASE) private readonly database: Database,
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly reembedder: GraphReembedder,
    private readonly tenants: TenantsRepository,
    private readonly rows: ReembedRepository,
  ) {}

  /** Starts one pass in the background (at most one at a time); `settled()` waits for it. */
  start(): void {
    if (!this.settings.ingest.moveLocalVectors || this.pass) return;
    this.pass = this.moveAll().catch((error) => {
      if (!this.stopping.signal.aborted) this.logger.warn(`moving offline vectors stopped: ${errorSummary(error)}`);
      return null;
    });
  }

  /** The running pass's result, or null when none ran (or it stopped). */
  settled(): Promise<OfflineVectorsMove | null> {
    return this.pass ?? Promise.resolve(null);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopping.abort(new Error('shutting down'));
    await this.pass;
  }

  private async moveAll(): Promise<OfflineVectorsMove | null> {
    const target = this.reembedder.targetModel();
    if (!target.startsWith(OFFLINE_EMBEDDER_PREFIX)) return null;
    const total: OfflineVectorsMove = { model: target, chunks: 0, entities: 0, edges: 0, failedTenants: 0 };
    for (let offset = 0; ; offset += TENANTS_A_PAGE) {
      const page = await this.tenants.list({ limit: TENANTS_A_PAGE, offset });
      for (const tenant of page) {
        this.stopping.signal.throwIfAborted();
        try {
          const moved = await this.reembedder.run({
            tenantId: tenant.id,
            onlyOfflineEmbedders: true,
            pageSize: ROWS_A_PAGE,
            // One row a statement on PGlite, where a statement's HNSW insertions hold the API's thread.
            rowsAStatement: vectorRowsAStatement(this.database.kind),
            signal: this.stopping.signal,
            vacuum: false,
          });
          total.chunks += moved.chunks;
          total.entities += moved.entities;
          total.edges += moved.edges;
        } catch (error) {
          if (this.stopping.signal.aborted) throw error;
          total.failedTenants += 1;
          this.logger.warn(`could not move tenant ${tenant.id}'s offline vectors to ${target}: ${errorSummary(error)}`);
        }
      }
      if (page.length < TENANTS_A_PAGE) break;
    }
    // One table at a time: on the embedded store a VACUUM holds the only connection.
    for (const table of ['chunks', 'entities', 'edges'] as ReembedTable[]) {
      if (total[table] > 0) await this.rows.vacuum(this.database.db, [table]);
    }
    if (total.chunks + total.entities + total.edges > 0) {
      this.logger.log(`moved offline vectors to ${target}: ${total.chunks} chunks, ${total.entities} entities, ${total.edges} facts`);
    }
    return total;
  }
}
