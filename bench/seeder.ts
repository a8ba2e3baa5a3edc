import { cpus } from 'node:os';
import { Pool, PoolClient } from 'pg';
import { ApiKeysService } from '../libs/auth/src/api-keys.service';
import { ApiKeysRepository, DEFAULT_GB_DATASET, findMigrationsFolder, GraphsRepository, PostgresDatabase, TenantsRepository } from '@loci/db';
import { generateDocuments, GenDocument, planTenants, TenantPlan } from './generator';
import { createRng } from './prng';
import { BenchQuestion, describeDatabase, questionFor, QuestionsFile, Reservoir } from './questions';
import type { StoredVectorWidth } from '../libs/db/src/vector-width';
import { BatchCounts, writeBatch, WriteScope } from './store-writer';

export interface SeedOptions {
  databaseUrl: string;
  tenants: number;
  edges: number;
  seed: number;
  /** Share of the edges in the large tenant (default 0.8). */
  largeShare?: number;
  /** Questions to keep (default 200); as many again for the gb dataset when there is one. */
  questions?: number;
  /**
   * Edges of a gb dataset graph (kind `gb`, user `gbUserId`, dataset `main`) in the large
   * tenant, written like its default graph (texts of kind `gb_text`), in addition to `edges`.
   * 0 or absent: none.
   */
  gbEdges?: number;
  /** The gb user id of that dataset (default `bench-user`). */
  gbUserId?: string;
  /** Facts per transaction (default 1000). */
  batchFacts?: number;
  /**
   * Drop the HNSW indexes before loading and build them again after (same definitions, read
   * from pg_indexes): much faster for large seeds, but only for a database nobody else is using.
   */
  deferIndexes?: boolean;
  /**
   * The width the vectors are stored at (default 1024): 256 writes them to the `_256` columns
   * under the model name the offline embedder records at that width, as ingestion with
   * LOCI_LOCAL_EMBEDDING_DIM=256 would, so a benchmark at 256 meets a graph of its own width.
   */
  vectorWidth?: StoredVectorWidth;
  /** maintenance_work_mem for rebuilding deferred indexes, in MB (default 2048). */
  indexMemoryMb?: number;
  /** The clock documents' loaded_at is drawn back from; fixed in tests for reproducible text. */
  now?: Date;
  onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  tenant: number;
  tenants: number;
  edgesDone: number;
  edgesTotal: number;
  rows: number;
  elapsedMs: number;
  phase: 'tenants' | 'load' | 'indexes' | 'analyze' | 'done';
}

export interface SeedResult {
  file: QuestionsFile;
  elapsedMs: number;
}

export const DEFAULT_GB_USER = 'bench-user';

const GRAPH_TABLES = ['documents', 'chunks', 'chunk_terms', 'entities', 'edges', 'entity_documents', 'edge_documents', 'entity_chunks', 'edge_chunks'];
const HNSW_TABLES = ['chunks', 'entities', 'edges'];

interface SeedScope extends WriteScope {
  plan: TenantPlan;
  /** Questions drawn from this graph's live facts (the large tenant's graphs only). */
  questions?: Reservoir<BenchQuestion>;
  totals: BatchCounts;
}

const zeroCounts = (): BatchCounts => ({ documents: 0, chunks: 0, entities: 0, edges: 0, provenance: 0 });

/**
 * Seeds `tenants` tenants (one large, the rest small) with `edges` edges in all, and optionally
 * a gb dataset graph of `gbEdges` edges in the large tenant; writes an API key for the large
 * tenant through ApiKeysService (so the HTTP scenarios authenticate like any client), and
 * returns the questions file content. Applies pending migrations first.
 */
export async function seedBench(options: SeedOptions): Promise<SeedResult> {
  const started = Date.now();
  const plans = planTenants(options.tenants, options.edges, options.largeShare);
  const gbEdges = options.gbEdges ?? 0;
  const gbUserId = options.gbUserId ?? DEFAULT_GB_USER;
  const questionCount = options.questions ?? 200;
  const now = options.now ?? new Date();
  const progress = (p: Omit<SeedProgress, 'elapsedMs' | 'tenants' | 'edgesTotal'>) =>
    options.onProgress?.({ ...p, tenants: plans.length + (gbEdges > 0 ? 1 : 0), edgesTotal: options.edges + gbEdges, elapsedMs: Date.now() - started });

  const database = PostgresDatabase.connect(options.databaseUrl, 2);
  const scopes: SeedScope[] = [];
  let gbScope: SeedScope | undefined;
  let apiKey: string;
  try {
    await database.migrate(findMigrationsFolder());
    const tenants = new TenantsRepository(database);
    const graphs = new GraphsRepository(database);
    for (const plan of plans) {
      const tenant = await tenants.create({
        name: plan.large ? `bench-large-s${options.seed}` : `bench-small-${plan.index}-s${options.seed}`,
        tier: plan.large ? 'enterprise' : 'free',
        billing: 'platform',
      });
      scopes.push({
        plan,
        tenantId: tenant.id,
        graphId: (await graphs.defaultGraph(tenant.id)).id,
        documentKind: 'document',
        questions: plan.large ? new Reservoir<BenchQuestion>(questionCount, createRng(options.seed, 'questions')) : undefined,
        totals: zeroCounts(),
      });
    }
    if (gbEdges > 0) {
      // The large tenant's gb user: its own PRNG stream, so the default graph's text is unchanged.
      const graph = await graphs.gbGraph(scopes[0].tenantId, gbUserId, DEFAULT_GB_DATASET);
      gbScope = {
        plan: { index: plans.length, large: false, edges: gbEdges, stream: `gb:${gbUserId}` },
        tenantId: scopes[0].tenantId,
        graphId: graph.id,
        documentKind: 'gb_text',
        questions: new Reservoir<BenchQuestion>(questionCount, createRng(options.seed, 'gb-questions')),
        totals: zeroCounts(),
      };
      scopes.push(gbScope);
    }
    apiKey = (await new ApiKeysService(new ApiKeysRepository(database)).create(scopes[0].tenantId, `bench seed ${options.seed}`, null)).key;
  } finally {
    await database.close();
  }
  progress({ tenant: 0, edgesDone: 0, rows: 0, phase: 'tenants' });

  const pool = new Pool({ connectionString: options.databaseUrl, max: 1 });
  const client = await pool.connect();
  let edgesDone = 0;
  let rows = 0;
  try {
    const deferred = options.deferIndexes ? await dropHnswIndexes(client) : [];
    for (const [i, scope] of scopes.entries()) {
      let batch: GenDocument[] = [];
      let batchFacts = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const counts = await writeBatch(client, scope, batch, options.vectorWidth);
        for (const key of Object.keys(counts) as Array<keyof BatchCounts>) scope.totals[key] += counts[key];
        rows += counts.documents + counts.chunks + counts.entities + counts.edges + counts.provenance;
        edgesDone += counts.edges;
        if (scope.questions) {
          for (const document of batch) {
            for (const chunk of document.chunks) {
              for (const fact of chunk.facts) if (fact.state !== 'superseded') scope.questions.offer(questionFor(fact, document.dbId!));
            }
          }
        }
        batch = [];
        batchFacts = 0;
        progress({ tenant: i + 1, edgesDone, rows, phase: 'load' });
      };
      for (const document of generateDocuments(scope.plan, options.seed, now)) {
        batch.push(document);
        batchFacts += document.chunks.reduce((n, c) => n + c.facts.length, 0);
        if (batchFacts >= (options.batchFacts ?? 1000)) await flush();
      }
      await flush();
    }
    if (deferred.length > 0) {
      progress({ tenant: scopes.length, edgesDone, rows, phase: 'indexes' });
      // An HNSW build that outgrows maintenance_work_mem goes on much more slowly (pgvector
      // notices it); pgvector builds in parallel with the maintenance workers, one per core.
      await client.query(`SET maintenance_work_mem = '${options.indexMemoryMb ?? 2048}MB'`);
      await client.query(`SET max_parallel_maintenance_workers = ${Math.max(0, cpus().length - 1)}`);
      for (const definition of deferred) await client.query(definition);
    }
    progress({ tenant: scopes.length, edgesDone, rows, phase: 'analyze' });
    // VACUUM too: index-only scans need the visibility map, and autovacuum may be off (or not
    // have run yet) on a freshly loaded database.
    await client.query(`VACUUM (ANALYZE) ${GRAPH_TABLES.join(', ')}`);
  } finally {
    client.release();
    await pool.end();
  }
  progress({ tenant: scopes.length, edgesDone, rows, phase: 'done' });

  const [large, ...small] = scopes.filter((s) => s !== gbScope);
  // Reservoir order depends on replacement; sort by edge id so the file reads in graph order.
  const inGraphOrder = (reservoir: Reservoir<BenchQuestion>) => [...reservoir.items].sort((a, b) => a.answer.edge_id - b.answer.edge_id);
  return {
    elapsedMs: Date.now() - started,
    file: {
      version: 1,
      seed: options.seed,
      edges: options.edges,
      tenants: options.tenants,
      created_at: new Date().toISOString(),
      database: describeDatabase(options.databaseUrl),
      large_tenant: {
        tenant_id: large.tenantId,
        graph_id: large.graphId,
        api_key: apiKey,
        edges: large.totals.edges,
        entities: large.totals.entities,
        chunks: large.totals.chunks,
        documents: large.totals.documents,
      },
      small_tenants: small.map((s) => ({ tenant_id: s.tenantId, graph_id: s.graphId, edges: s.plan.edges })),
      questions: inGraphOrder(large.questions!),
      ...(gbScope
        ? {
            gb: {
              user_id: gbUserId,
              dataset: DEFAULT_GB_DATASET,
              graph_id: gbScope.graphId,
              edges: gbScope.totals.edges,
              entities: gbScope.totals.entities,
              chunks: gbScope.totals.chunks,
              texts: gbScope.totals.documents,
              questions: inGraphOrder(gbScope.questions!),
            },
          }
        : {}),
    },
  };
}

/** Drops the HNSW indexes of the graph tables and returns the statements that recreate them. */
async function dropHnswIndexes(client: PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes
     WHERE schemaname = current_schema() AND tablename = ANY($1) AND indexdef ILIKE '%USING hnsw%'
     ORDER BY indexname`,
    [HNSW_TABLES],
  );
  for (const row of rows) await client.query(`DROP INDEX IF EXISTS "${row.indexname}"`);
  return rows.map((row) => row.indexdef);
}
