import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Database, DATABASE } from '@loci/db';
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
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const { queue, database, kv } = this;

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
  }
}
