import { join } from 'node:path';
import { decimal, integer, parse, UsageError } from './args';
import { EMBEDDING_DIMENSIONS } from '../libs/db/src/schema/columns';
import { STORED_VECTOR_WIDTHS, StoredVectorWidth } from '../libs/db/src/vector-width';
import { questionsPath, writeQuestionsFile } from './questions';
import { SeedProgress, seedBench } from './seeder';

export const SEED_USAGE = `Usage: npm run bench:seed -- --edges E [--tenants T] [--seed S] [options]

Writes a generated knowledge graph straight into the store at $DATABASE_URL (PostgreSQL):
one large tenant with most of the edges and T-1 small ones, as ingestion would have left them
(processed documents, chunks, entities, edges, provenance, local-hash-v1 vectors), plus a gb
dataset graph of the large tenant (user bench-user, dataset main), then an API key and
questions for the large tenant in bench/data/questions-<seed>-<edges>.json.
Use a database of its own: the seed adds tenants every time it runs.

Options:
  --edges <n>          edges in all tenants together (1k, 10k, 1m accepted)
  --tenants <n>        tenants (default 20)
  --seed <n>           PRNG seed (default 1): same seed and sizes, same text
  --large-share <f>    share of the edges in the large tenant (default 0.8)
  --gb-edges <n>       edges of the gb dataset, on top of --edges (default 2000; 0: none)
  --questions <n>      questions to write per graph (default 200)
  --batch <n>          facts per transaction (default 1000)
  --vector-width <n>   1024 (default) or 256: the columns the vectors go to and the embedder's
                       width, as ingestion with LOCI_LOCAL_EMBEDDING_DIM=<n> stores them
  --defer-indexes      drop the HNSW indexes while loading and rebuild them after (large seeds)
  --index-memory <mb>  maintenance_work_mem for the rebuild, in MB (default 2048): an HNSW
                       build that outgrows it slows down several times; it is also the size of
                       the shared memory a parallel build asks for
  --out <dir>          where the questions file goes (default bench/data)
  -h, --help           this text
`;

const OPTIONS = {
  edges: { type: 'string' },
  tenants: { type: 'string' },
  seed: { type: 'string' },
  'large-share': { type: 'string' },
  'gb-edges': { type: 'string' },
  questions: { type: 'string' },
  batch: { type: 'string' },
  'vector-width': { type: 'string' },
  'defer-indexes': { type: 'boolean' },
  'index-memory': { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Only the store's widths: another would be zero-padded into the 1024 columns by the API, not by the seed. */
function vectorWidth(value: string | undefined): StoredVectorWidth {
  const width = integer('vector-width', value, EMBEDDING_DIMENSIONS, 1, EMBEDDING_DIMENSIONS);
  if (!(STORED_VECTOR_WIDTHS as readonly number[]).includes(width)) {
    throw new UsageError(`--vector-width must be one of ${STORED_VECTOR_WIDTHS.join(', ')}, got ${width}`);
  }
  return width as StoredVectorWidth;
}

function progressLine(p: SeedProgress): string {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? Math.round(p.rows / seconds) : 0;
  const pct = Math.floor((100 * p.edgesDone) / p.edgesTotal);
  return `seed: ${p.phase} tenant ${p.tenant}/${p.tenants}, edges ${p.edgesDone}/${p.edgesTotal} (${pct}%), ${p.rows} rows, ${rate} rows/s, ${seconds.toFixed(1)} s`;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parse(argv, OPTIONS));
    if (values.help) {
      process.stdout.write(SEED_USAGE);
      return 0;
    }
    if (values.edges === undefined) throw new UsageError('--edges is required');
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:seed: ${error.message}\n\n${SEED_USAGE}`);
    return 2;
  }
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('bench:seed: DATABASE_URL is not set; the benchmarks need PostgreSQL with pgvector.\n');
    return 2;
  }
  let options;
  try {
    options = {
      databaseUrl,
      edges: integer('edges', values.edges, 0, 1, 50_000_000),
      tenants: integer('tenants', values.tenants, 20, 1, 100_000),
      seed: integer('seed', values.seed, 1, 0, 2 ** 31 - 1),
      largeShare: decimal('large-share', values['large-share'], 0.8, 0.01, 1),
      gbEdges: integer('gb-edges', values['gb-edges'], 2000, 0, 10_000_000),
      questions: integer('questions', values.questions, 200, 1, 100_000),
      batchFacts: integer('batch', values.batch, 1000, 10, 100_000),
      vectorWidth: vectorWidth(values['vector-width']),
      deferIndexes: values['defer-indexes'] === true,
      indexMemoryMb: integer('index-memory', values['index-memory'], 2048, 64, 1_000_000),
    };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench:seed: ${error.message}\n`);
    return 2;
  }
  const tty = process.stderr.isTTY;
  let lastPrinted = 0;
  const { file, elapsedMs } = await seedBench({
    ...options,
    onProgress: (p) => {
      // One rewritten line on a terminal; a line every 5 s (and at phase changes) in a log.
      if (tty) process.stderr.write(`\r${progressLine(p)}\x1b[K`);
      else if (p.phase !== 'load' || p.elapsedMs - lastPrinted >= 5000) {
        lastPrinted = p.elapsedMs;
        process.stderr.write(`${progressLine(p)}\n`);
      }
    },
  });
  if (tty) process.stderr.write('\n');
  const path = questionsPath(values.out ?? join(process.cwd(), 'bench', 'data'), options.seed, options.edges);
  writeQuestionsFile(path, file);
  const large = file.large_tenant;
  process.stdout.write(
    `seeded ${options.edges} edges over ${options.tenants} tenants in ${(elapsedMs / 1000).toFixed(1)} s; ` +
      `large tenant ${large.tenant_id}: ${large.edges} edges, ${large.entities} entities, ${large.chunks} chunks, ${large.documents} documents\n` +
      (file.gb ? `gb dataset ${file.gb.user_id}/${file.gb.dataset} (graph ${file.gb.graph_id}): ${file.gb.edges} edges, ${file.gb.entities} entities, ${file.gb.chunks} chunks, ${file.gb.texts} texts\n` : '') +
      `questions and API key: ${path}\n`,
  );
  return 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`\nbench:seed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
