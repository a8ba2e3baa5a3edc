/* What issue 16.3's bulk mode would buy: the PostgreSQL CPU of putting one tenant's new vectors
 * into HNSW one insertion at a time (what ingestion does today: each chunk's ~33 vectors enter
 * the shared index as they are written) against writing them unindexed and building one index
 * over them at the end (CREATE INDEX, what bench:seed's --defer-indexes does).
 *
 * Per width: a table holding `prefill` rows of other tenants with the shared HNSW index
 * (halfvec_cosine_ops, the store's m/ef_construction defaults), then the tenant's `tenantRows`
 * rows two ways, interleaved by width:
 * - incremental: INSERTed in statements of 33 rows (a chunk's vectors) into the indexed table;
 * - built once: INSERTed into a column no index covers, then one CREATE INDEX … WHERE tenant
 *   (a partial index of the tenant's own), with max_parallel_maintenance_workers = 0 so that the
 *   backend's CPU is all of it.
 * Texts: 12-word windows of the HotpotQA-100 passages, embedded by the offline hashing embedder.
 * One connection; CPU is the backend's (/proc), so the client's encoding is not counted.
 * Usage: DATABASE_URL=… node dist/bench/experiments/hnsw-build-once.js [prefill] [tenantRows] [widths]
 */
import { cpus } from 'node:os';
import { Client } from 'pg';
import { backendCpuMs } from './backend-cpu';
import { passageWindows } from './hotpot-passages';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { halfvecText } from '../../libs/db/src/vector-text';

const CHUNK_VECTORS = 33; // vectors a chunk writes (docs/BENCHMARKS.md, "CPU a chunk")
const TENANT = 7;

async function insertAll(client: Client, table: string, width: number, tenant: number, vectors: string[], rowsAStatement: number) {
  for (let i = 0; i < vectors.length; i += rowsAStatement) {
    await client.query(
      `INSERT INTO ${table} (tenant, v) SELECT $1, v::halfvec(${width}) FROM unnest($2::text[]) AS t(v)`,
      [tenant, vectors.slice(i, i + rowsAStatement)],
    );
  }
}

async function main() {
  const [prefillArg, tenantArg, widthsArg] = process.argv.slice(2);
  const prefill = Number(prefillArg ?? 50_000);
  const tenantRows = Number(tenantArg ?? 10_000);
  const widths = (widthsArg ?? '256,1024').split(',').map(Number);
  const texts = passageWindows(prefill + tenantRows, 1);

  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  // Its own tables need pgvector's types; a database Loci never migrated has no extension yet.
  await client.query('CREATE EXTENSION IF NOT EXISTS vector');
  const pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  await client.query(`SET maintenance_work_mem = '1GB'`);
  for (const width of widths) {
    const embedder = new LocalHashingEmbedder(width);
    const vectors = texts.map((text) => halfvecText(embedder.embedText(text)));
    const others = vectors.slice(0, prefill);
    const tenant = vectors.slice(prefill, prefill + tenantRows);

    // Incremental: the tenant's rows enter the shared index as they are written.
    const shared = `build_once_shared_${width}`;
    await client.query(`CREATE TEMPORARY TABLE ${shared} (id bigserial PRIMARY KEY, tenant int NOT NULL, v halfvec(${width}))`);
    await insertAll(client, shared, width, 1, others, 1000);
    await client.query(`SET max_parallel_maintenance_workers = ${Math.max(0, cpus().length - 1)}`);
    await client.query(`CREATE INDEX ON ${shared} USING hnsw (v halfvec_cosine_ops)`);
    let before = backendCpuMs(pid);
    let started = Date.now();
    await insertAll(client, shared, width, TENANT, tenant, CHUNK_VECTORS);
    const incrementalCpu = backendCpuMs(pid) - before;
    const incrementalWall = Date.now() - started;

    // Built once: the tenant's rows written where no index covers them, then one build of its own.
    const own = `build_once_own_${width}`;
    await client.query(`CREATE TEMPORARY TABLE ${own} (id bigserial PRIMARY KEY, tenant int NOT NULL, v halfvec(${width}))`);
    before = backendCpuMs(pid);
    await insertAll(client, own, width, TENANT, tenant, CHUNK_VECTORS);
    const writeCpu = backendCpuMs(pid) - before;
    await client.query('SET max_parallel_maintenance_workers = 0');
    before = backendCpuMs(pid);
    started = Date.now();
    await client.query(`CREATE INDEX ON ${own} USING hnsw (v halfvec_cosine_ops) WHERE tenant = ${TENANT}`);
    const buildCpu = backendCpuMs(pid) - before;
    const buildWall = Date.now() - started;

    const perVector = (ms: number) => (ms / tenantRows).toFixed(2);
    console.log(
      JSON.stringify({
        width,
        prefill,
        tenant_rows: tenantRows,
        incremental_cpu_ms_per_vector: Number(perVector(incrementalCpu)),
        incremental_wall_s: incrementalWall / 1000,
        unindexed_write_cpu_ms_per_vector: Number(perVector(writeCpu)),
        build_cpu_ms_per_vector: Number(perVector(buildCpu)),
        build_wall_s: buildWall / 1000,
        incremental_over_build_and_write: Number((incrementalCpu / (buildCpu + writeCpu)).toFixed(1)),
      }),
    );
    await client.query(`DROP TABLE ${shared}, ${own}`);
  }
  await client.end();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
