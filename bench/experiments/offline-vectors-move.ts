/* How long a starting worker takes to move a graph written at one offline width to another
 * (OfflineVectorsMover, docs/decisions/0006-offline-vectors-move-themselves.md "Vectors of another offline embedder move by
 * themselves"), and what it does to the event loop meanwhile: on the embedded store (PGlite)
 * the moves' writes, their HNSW insertions included, run on the thread that answers requests.
 *
 * 1. A worker at LOCI_LOCAL_EMBEDDING_DIM=<from> ingests the first <passages> HotpotQA-100
 *    passages, one document each, into a new tenant (the offline providers).
 * 2. A worker at <to> starts; the move runs in the background. Reported: its wall time, rows
 *    moved, and the event loop's delay while it ran (perf_hooks histogram, 10 ms resolution:
 *    what a request arriving then would wait before its handler ran). The ingestion's delay is
 *    reported beside it, for comparison.
 * Beside each delay, how long a trivial read of the store (`SELECT 1`, every 100 ms) waited: on
 * PGlite's one session a statement outside a transaction waits for the transaction to end, so
 * this is what a request that reads the store waits while a chunk (or a page) is written.
 * The store: PGlite in a temporary directory, the embedded default, where the move shares the
 * API's thread (on PostgreSQL the writes run in the server; and the mover would move every
 * tenant's offline rows of a shared bench database, so this bench does not take one).
 * Usage: npm run build && node dist/bench/experiments/offline-vectors-move.js [passages] [from] [to]
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Database, DATABASE, TenantsRepository } from '@loci/db';
import { DocumentsService, IngestWorker, OfflineVectorsMover } from '@loci/ingest';
import { hotpotPassages } from './hotpot-passages';
import { pgliteWorker } from './pglite-worker';

const worker = (dataDir: string, dimensions: number) =>
  pgliteWorker(dataDir, { LOCI_EMBED_MODEL: 'local:local-hash-v1', LOCI_LOCAL_EMBEDDING_DIM: String(dimensions) });

/** Times a `SELECT 1` every 100 ms until stopped: how long a read of the store waits meanwhile. */
function sampleStoreWaits(database: Database): { stop: () => Promise<{ p50: number; p99: number; max: number; reads: number }> } {
  const waits: number[] = [];
  let running = true;
  const sampling = (async () => {
    while (running) {
      const started = performance.now();
      await database.ping();
      waits.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await sampling;
      const sorted = [...waits].sort((a, b) => a - b);
      const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
      return { p50: at(0.5), p99: at(0.99), max: Math.round(sorted.at(-1) ?? 0), reads: sorted.length };
    },
  };
}

async function main() {
  const [passagesArg, fromArg, toArg] = process.argv.slice(2);
  const passages = Number(passagesArg ?? 200);
  const from = Number(fromArg ?? 1024);
  const to = Number(toArg ?? 256);
  const corpus = hotpotPassages();
  const dataDir = mkdtempSync(join(tmpdir(), 'loci-bench-move-'));
  try {
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    const ingestDelay = monitorEventLoopDelay({ resolution: 10 });
    const ingesting = await worker(dataDir, from);
    let tenantId: string;
    let ingestReads: Awaited<ReturnType<ReturnType<typeof sampleStoreWaits>['stop']>> | undefined;
    const ingestStarted = Date.now();
    try {
      tenantId = (await ingesting.get(TenantsRepository).create({ name: `bench-move-${Date.now()}`, tier: 'enterprise', billing: 'platform' })).id;
      const documents = ingesting.get(DocumentsService);
      for (const passage of corpus.slice(0, passages)) {
        await documents.submit(tenantId, { name: `${passage.title}.txt`, text: passage.text, mimeType: 'text/plain' });
      }
      const queue = ingesting.get(IngestWorker);
      ingestDelay.enable();
      const reads = sampleStoreWaits(ingesting.get<Database>(DATABASE));
      queue.start();
      await queue.drain();
      ingestReads = await reads.stop();
      ingestDelay.disable();
    } finally {
      await ingesting.close();
    }
    const ingestS = (Date.now() - ingestStarted) / 1000;

    const delay = monitorEventLoopDelay({ resolution: 10 });
    const moving = await worker(dataDir, to);
    try {
      const mover = moving.get(OfflineVectorsMover);
      delay.enable();
      const reads = sampleStoreWaits(moving.get<Database>(DATABASE));
      const started = Date.now();
      mover.start();
      const moved = await mover.settled();
      const seconds = (Date.now() - started) / 1000;
      const moveReads = await reads.stop();
      delay.disable();
      console.log(
        JSON.stringify({
          store: 'pglite',
          passages,
          from,
          to,
          ingest_s: ingestS,
          ingest_event_loop_delay_ms: { p50: ms(ingestDelay.percentile(50)), p99: ms(ingestDelay.percentile(99)), max: ms(ingestDelay.max) },
          ingest_store_read_wait_ms: ingestReads,
          moved,
          move_s: seconds,
          rows_per_s: moved ? Math.round((moved.chunks + moved.entities + moved.edges) / seconds) : null,
          event_loop_delay_ms: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
          store_read_wait_ms: moveReads,
        }),
      );
    } finally {
      await moving.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
