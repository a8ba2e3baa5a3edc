import 'reflect-metadata';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule, loadSettings, Settings, SettingsError } from '@loci/config';
import { DbModule } from '@loci/db';
import { GraphReembedder, ReembedProgress } from '@loci/ingest';
import { KvModule } from '@loci/kv';
import { LlmModule } from '@loci/llm';
import { QuotaModule } from '@loci/quota';
import { openStoreContext } from './store-context';

export const REEMBED_USAGE = `  reembed [--tenant <tenant id> [--graph <graph id>]] [--page-size <n>]
                 moves every vector of the store (or of a tenant, or one graph) to the
                 configured embedder (LOCI_EMBED_MODEL, LOCI_LOCAL_EMBEDDING_DIM); runs on the
                 store itself (DATABASE_URL or LOCI_DATA_DIR), not through the API`;

export interface ReembedArgs {
  tenant?: string;
  graph?: string;
  pageSize?: string;
}

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The store, limits and model layer as the API and the worker have them; no HTTP, no queue. */
@Module({})
class ReembedModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ReembedModule,
      imports: [ConfigModule.forRoot(settings), DbModule, KvModule, QuotaModule, LlmModule],
      providers: [GraphReembedder],
    };
  }
}

/** A usage mistake: the message says what to change. */
export class ReembedUsageError extends Error {}

function parseArgs(args: ReembedArgs): { tenantId?: string; graphId?: number; pageSize?: number } {
  if (args.tenant !== undefined && !UUID.test(args.tenant)) throw new ReembedUsageError(`--tenant must be a tenant id (a UUID), got "${args.tenant}"`);
  let graphId: number | undefined;
  if (args.graph !== undefined) {
    if (args.tenant === undefined) throw new ReembedUsageError('--graph needs --tenant: a graph is named within its tenant');
    graphId = Number(args.graph);
    if (!Number.isSafeInteger(graphId) || graphId < 1) throw new ReembedUsageError(`--graph must be a graph id (a positive whole number), got "${args.graph}"`);
  }
  let pageSize: number | undefined;
  if (args.pageSize !== undefined) {
    pageSize = Number(args.pageSize);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) throw new ReembedUsageError(`--page-size must be a whole number from 1 to 1000, got "${args.pageSize}"`);
  }
  return { tenantId: args.tenant, graphId, pageSize };
}

/**
 * `npm run loci -- reembed`: re-embeds on the store directly, like `npm run migrate`, so that an
 * operator can move a large graph without an HTTP request that lasts hours. On PostgreSQL it
 * runs beside serving APIs and workers; the embedded store (PGlite) has one owner, so stop the
 * server first. Prints progress on stderr and the report (JSON) on stdout.
 * Exit codes: 0 done, 1 failed (run again to continue), 2 usage or settings error.
 */
export async function reembed(args: ReembedArgs, io: Io): Promise<number> {
  let options;
  let settings: Settings;
  try {
    options = parseArgs(args);
    settings = loadSettings(io.env);
  } catch (error) {
    if (error instanceof ReembedUsageError || error instanceof SettingsError) {
      io.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const app = await openStoreContext(ReembedModule.forRoot(settings), settings, io, 're-embedding');
  if (!app) return 1;
  try {
    const reembedder = app.get(GraphReembedder);
    io.stderr.write(`re-embedding with ${reembedder.targetModel()}\n`);
    const report = await reembedder.run({
      ...options,
      onProgress: ({ table, done, total }: ReembedProgress) => io.stderr.write(`${table}: ${done}/${total}\n`),
    });
    io.stdout.write(`${JSON.stringify({ model: report.model, chunks: report.chunks, entities: report.entities, edges: report.edges, cost_usd: report.costMicros / 1_000_000 }, null, 2)}\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`re-embedding stopped: ${(error as Error).message} (run it again to continue)\n`);
    return 1;
  } finally {
    await app.close();
  }
}
