import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { Database, DATABASE, ReadRouter } from '@loci/db';
import { JobQueue, QueueDepth } from '@loci/ingest';
import { KV_STORE, KvStore } from '@loci/kv';
import { LociMetrics } from '@loci/metrics';

/**
 * The series read at scrape time rather than counted: the ingestion backlog (from the store,
 * so it is the whole queue's, whichever process consumes it), the store's and the limit
 * store's health, and the database pool of this process. A source that fails leaves its
 * series out of that scrape (and says so in its `_up` gauge) instead of failing the scrape.
 */
@Injectable()
export class ScrapeGauges implements OnModuleInit {
  constructor(
    private readonly metrics: LociMetrics,
    private readonly queue: JobQueue,
    @Inject(DATABASE) private readonly database: Database,
    @Inject(KV_STORE) private readonly kv: KvStore,
    private readonly reads: ReadRouter,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const { queue, database, kv, reads } = this;

    // One statement answers three series. The registry collects every metric of a scrape at
    // once, so the three share the read in flight instead of making one each.
    let reading: Promise<QueueDepth | undefined> | undefined;
    const depth = () => (reading ??= queue.depth().then((value) => value, () => undefined).finally(() => (reading = undefined)));

    new Gauge({
      name: 'loci_ingest_queue_jobs',
      help: 'Ingestion jobs of every tenant by state: ready (due, waiting for a worker), scheduled (a retry later), running.',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        const read = await depth();
        if (!read) return;
        this.set({ state: 'ready' }, read.ready);
        this.set({ state: 'scheduled' }, read.scheduled);
        this.set({ state: 'running' }, read.running);
      },
    });
    new Gauge({
      name: 'loci_ingest_queue_oldest_ready_seconds',
      help: 'How long the oldest ready ingestion job has been waiting (0: none).',
      registers,
      async collect() {
        this.reset();
        const read = await depth();
        if (read) this.set(read.oldestReadySeconds);
      },
    });
    new Gauge({
      name: 'loci_store_up',
      help: 'Whether the store answered this scrape (1) or not (0).',
      labelNames: ['driver'] as const,
      registers,
      async collect() {
        this.set({ driver: database.kind }, (await depth()) ? 1 : 0);
      },
    });

    new Gauge({
      name: 'loci_db_pool_connections',
      help: "This process's PostgreSQL pool: connections open (total), idle, checkouts waiting, and its size (max). Absent on the embedded store.",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const stats = database.poolStats?.();
        if (!stats) return;
        for (const state of ['total', 'idle', 'waiting', 'max'] as const) this.set({ state }, stats[state]);
      },
    });

    new Gauge({
      name: 'loci_limit_store_up',
      help: 'Whether the limit store (Redis, or the in-process memory store) answered a ping this scrape.',
      labelNames: ['driver'] as const,
      registers,
      async collect() {
        const up = await kv.ping().then(() => 1, () => 0);
        this.set({ driver: kv.kind }, up);
      },
    });

    // Read replicas (DATABASE_READ_URL): absent without any. From the router's last check (every
    // 250 ms), so a scrape asks no replica anything.
    new Gauge({
      name: 'loci_db_replica_up',
      help: 'Whether each read replica serves reads (1: up and within LOCI_REPLICA_MAX_LAG_MS) or not (0: lagging or down).',
      labelNames: ['replica', 'status'] as const,
      registers,
      collect() {
        this.reset();
        for (const r of reads.states()) this.set({ replica: r.name, status: r.status }, r.status === 'up' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'loci_db_replica_lag_seconds',
      help: "How far each read replica's replay is behind the primary, in time; absent while it is down.",
      labelNames: ['replica'] as const,
      registers,
      collect() {
        this.reset();
        for (const r of reads.states()) if (r.lagMs !== null) this.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    new Counter({
      name: 'loci_db_reads_total',
      help: "Question reads of this process by where they went: replica, primary, fallback (failed on a replica, answered by the primary), waited (for a replica to replay the client's own write), waited_out (then read the primary), notes_unreachable (read the primary: the shared write notes did not answer).",
      labelNames: ['route'] as const,
      registers,
      collect() {
        if (!reads.routes) return;
        // The router counts; the counter shows its totals (reset, then set by inc from zero).
        this.reset();
        const c = reads.counts;
        for (const [route, value] of [['replica', c.replica], ['primary', c.primary], ['fallback', c.fallback], ['waited', c.waited], ['waited_out', c.waitedOut], ['notes_unreachable', c.notesUnreachable]] as const) {
          this.inc({ route }, value);
        }
      },
    });
  }
}
