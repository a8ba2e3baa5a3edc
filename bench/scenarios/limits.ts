import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { PlatformLimitsRepository, PostgresDatabase, QuestionCountsRepository, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { limitKeys, LimitStore, MemoryLimitStore, RedisLimitStore, SpendControl, SpendScope } from '@loci/quota';
import { LatencySummary, summarize } from '../stats';

/**
 * `limits`: what spend control costs one limited request, measured without HTTP or a model.
 *
 * - layer `store`: the LimitStore calls a limited request needs at the least: acquireSlot,
 *   reserve (three scopes: month, day, platform-like), settle, releaseSlot.
 * - layer `spend-control`: SpendControl as the API runs it: admit (slot, caps, daily quota),
 *   reserve, settle, release, for a tenant with every limit set (caps, quota, concurrency) and
 *   platform billing. It reads the tenant and the platform limits from PostgreSQL, so it needs
 *   DATABASE_URL; the bench tenant is created for the run and deleted after it.
 *
 * Redis round trips are counted exactly by wrapping the ioredis client's `sendCommand` (every
 * command of a non-pipelined client is one request and one reply; this client has no
 * auto-pipelining), after a warm-up so that script loading and the first counter seeding are
 * not counted. PostgreSQL statements of the spend-control layer are counted by wrapping the
 * pool's `query`. The Redis client is built with RedisLimitStore.connect's own options.
 */

export type LimitsLayer = 'store' | 'spend-control';
export type LimitsStoreKind = 'redis' | 'memory';
export const LIMITS_LAYERS: readonly LimitsLayer[] = ['store', 'spend-control'];
export const LIMITS_STORES: readonly LimitsStoreKind[] = ['redis', 'memory'];

export interface LimitsCell {
  scenario: 'limits';
  layer: LimitsLayer;
  store: LimitsStoreKind;
  concurrency: number;
  duration_s: number;
  /** Limited requests completed (the whole sequence of the layer). */
  requests: number;
  errors: number;
  throughput_rps: number;
  /** Wall time of one limited request's limit calls, in microseconds. */
  latency_us: LatencySummary;
  /** Redis commands per limited request (null for the in-process store): mean, and at concurrency 1 the min and max of single requests. */
  redis_round_trips: { per_request: number; min: number | null; max: number | null; by_command: Record<string, number> } | null;
  /** PostgreSQL statements per limited request (spend-control layer only). */
  postgres_statements_per_request: number | null;
}

export interface LimitsBenchOptions {
  layers: LimitsLayer[];
  stores: LimitsStoreKind[];
  concurrencies: number[];
  durationS: number;
  /** Needed for the redis store. */
  redisUrl?: string;
  /** Needed for the spend-control layer. */
  databaseUrl?: string;
  /** Limited requests run before each cell's clock starts. */
  warmup?: number;
  log?: (line: string) => void;
}

export interface LimitsBenchOutcome {
  cells: LimitsCell[];
  /** Cells asked for but not run, and why (no REDIS_URL, no DATABASE_URL). */
  skipped: Array<{ layer: LimitsLayer; store: LimitsStoreKind; reason: string }>;
}

const MICROS_PER_CALL = 2_000; // the worst-case estimate reserved; a realistic small call
const UNLIMITED_ENOUGH = 1_000_000_000_000; // caps set (so they are checked) but never reached

/** Counts the commands an ioredis client sends, by name. */
class CommandTally {
  total = 0;
  readonly byName = new Map<string, number>();

  attach(redis: Redis): void {
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
      this.total++;
      this.byName.set(command.name, (this.byName.get(command.name) ?? 0) + 1);
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    });
  }

  reset(): void {
    this.total = 0;
    this.byName.clear();
  }
}

/** One limited request of a layer; `run` resolves when all of its limit calls are done. */
interface Subject {
  run(): Promise<void>;
  close(): Promise<void>;
  /** Redis key patterns of what it wrote, deleted after the run. */
  keyPatterns: string[];
}

export async function runLimitsBench(options: LimitsBenchOptions): Promise<LimitsBenchOutcome> {
  const log = options.log ?? (() => undefined);
  const cells: LimitsCell[] = [];
  const skipped: LimitsBenchOutcome['skipped'] = [];
  for (const layer of options.layers) {
    for (const storeKind of options.stores) {
      if (storeKind === 'redis' && !options.redisUrl) {
        skipped.push({ layer, store: storeKind, reason: 'REDIS_URL is not set' });
        continue;
      }
      if (layer === 'spend-control' && !options.databaseUrl) {
        skipped.push({ layer, store: storeKind, reason: 'DATABASE_URL is not set (SpendControl reads the tenant and the platform limits)' });
        continue;
      }
      const tally = new CommandTally();
      const namespace = `loci-bench:${randomUUID().slice(0, 8)}:`;
      let redis: Redis | undefined;
      let store: LimitStore;
      if (storeKind === 'redis') {
        redis = new Redis(options.redisUrl!, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
        redis.on('error', () => undefined);
        tally.attach(redis);
        store = new RedisLimitStore(redis, { namespace });
      } else {
        store = new MemoryLimitStore();
      }
      const pg = layer === 'spend-control' ? new StatementCounter(options.databaseUrl!) : undefined;
      const subject = layer === 'store' ? storeSubject(store) : await spendControlSubject(store, pg!);
      try {
        await store.now(); // connected
        for (const concurrency of options.concurrencies) {
          for (let i = 0; i < (options.warmup ?? 50); i++) await subject.run();
          tally.reset();
          pg?.reset();
          const { minCommands, maxCommands, ...cell } = await measure(subject, concurrency, options.durationS, storeKind === 'redis' ? tally : undefined);
          const result: LimitsCell = {
            scenario: 'limits',
            layer,
            store: storeKind,
            concurrency,
            ...cell,
            redis_round_trips:
              storeKind === 'redis'
                ? {
                    per_request: round3(tally.total / Math.max(1, cell.requests)),
                    min: minCommands,
                    max: maxCommands,
                    by_command: Object.fromEntries([...tally.byName].map(([name, n]) => [name, round3(n / Math.max(1, cell.requests))])),
                  }
                : null,
            postgres_statements_per_request: pg ? round3(pg.statements / Math.max(1, cell.requests)) : null,
          };
          cells.push(result);
          log(limitsLine(result));
        }
      } finally {
        await subject.close();
        if (redis) await removeKeys(redis, [`${namespace}*`, ...subject.keyPatterns]);
        await store.close();
        await pg?.end();
      }
    }
  }
  return { cells, skipped };
}

async function measure(subject: Subject, concurrency: number, durationS: number, tally: CommandTally | undefined) {
  const latencies: number[] = [];
  let errors = 0;
  let minCommands: number | null = null;
  let maxCommands: number | null = null;
  const started = performance.now();
  const deadline = started + durationS * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const before = tally?.total ?? 0;
      const t0 = performance.now();
      try {
        await subject.run();
        latencies.push((performance.now() - t0) * 1000);
        // Alone in flight, the commands between start and end are this request's own.
        if (tally && concurrency === 1) {
          const n = tally.total - before;
          minCommands = minCommands === null ? n : Math.min(minCommands, n);
          maxCommands = maxCommands === null ? n : Math.max(maxCommands, n);
        }
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  return {
    duration_s: round2(elapsedS),
    requests: latencies.length,
    errors,
    throughput_rps: round2(latencies.length / elapsedS),
    latency_us: summarize(latencies),
    minCommands,
    maxCommands,
  };
}

/** acquireSlot → reserve (3 scopes) → settle → releaseSlot, keys under a throwaway tenant tag. */
function storeSubject(store: LimitStore): Subject {
  const tenantId = randomUUID();
  const day = '2000-01-01';
  const ttlMs = 3_600_000;
  const scopes: SpendScope[] = [
    { key: limitKeys.tenantSpendMonth(tenantId, '2000-01'), capMicros: UNLIMITED_ENOUGH, ttlMs },
    { key: limitKeys.tenantSpendDay(tenantId, day), capMicros: UNLIMITED_ENOUGH, ttlMs },
    // Same shape as the platform day counter, under the throwaway tag so the shared one is untouched.
    { key: `${limitKeys.tenantSpendDay(tenantId, day)}:platform`, capMicros: UNLIMITED_ENOUGH, ttlMs },
  ];
  const slotKey = limitKeys.clientSlots(tenantId, 'key', 'bench');
  return {
    keyPatterns: [`loci:{t:${tenantId}}:*`],
    async run() {
      const id = randomUUID();
      const slot = await store.acquireSlot(slotKey, id, 1000, 60_000);
      if (!slot.ok) throw new Error('slot refused');
      const reserved = await store.reserve(`${id}:1`, scopes, MICROS_PER_CALL, 600_000);
      if (!reserved.ok) throw new Error('reservation refused');
      await store.settle(`${id}:1`, scopes, MICROS_PER_CALL / 2);
      await store.releaseSlot(slotKey, id);
    },
    async close() {},
  };
}

/**
 * admit → reserve → settle → release through SpendControl, for a bench tenant with every limit
 * set. It settles 0 µ$: the tenant is billed to the platform (so the platform day scope is in
 * play, as for most tenants), and the shared platform day counter must end where it started.
 */
async function spendControlSubject(store: LimitStore, pg: StatementCounter): Promise<Subject> {
  const tenants = new TenantsRepository(pg.database);
  const tenant = await tenants.create({
    name: `bench-limits-${Date.now()}`,
    tier: 'pro',
    billing: 'platform',
    dailyCostCapMicros: UNLIMITED_ENOUGH,
    monthlyCostCapMicros: UNLIMITED_ENOUGH,
    dailyQueryQuota: 1_000_000_000,
    maxConcurrentQueries: 1000,
  });
  const spend = new SpendControl(
    store,
    tenants,
    new PlatformLimitsRepository(pg.database),
    new SpendLedgerRepository(pg.database),
    { slotLeaseMs: 60_000, reservationLeaseMs: 600_000 },
    new QuestionCountsRepository(pg.database),
  );
  return {
    keyPatterns: [`loci:{t:${tenant.id}}:*`],
    async run() {
      const requestId = randomUUID();
      const permit = await spend.admit({ tenantId: tenant.id, clientKind: 'key', clientId: 'bench', requestId }, { countsQuota: true });
      try {
        const reservation = await spend.reserve(tenant.id, `${requestId}:1`, MICROS_PER_CALL);
        await reservation.settle(0);
      } finally {
        await permit.release();
      }
    },
    async close() {
      await pg.pool.query('DELETE FROM tenants WHERE id = $1', [tenant.id]);
    },
  };
}

/** A PostgresDatabase on a pool whose `query` calls are counted (drizzle sends every statement through it). */
class StatementCounter {
  readonly pool: Pool;
  readonly database: PostgresDatabase;
  statements = 0;

  constructor(url: string) {
    this.pool = new Pool({ connectionString: url, max: 4 });
    this.pool.on('error', () => undefined);
    const query = this.pool.query.bind(this.pool) as (...args: unknown[]) => unknown;
    (this.pool as { query: unknown }).query = (...args: unknown[]) => {
      this.statements++;
      return query(...args);
    };
    this.database = new PostgresDatabase(this.pool);
  }

  reset(): void {
    this.statements = 0;
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/** Deletes what the run left in a Redis shared with others (settled markers live for a month). */
async function removeKeys(redis: Redis, patterns: string[]): Promise<void> {
  for (const match of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  }
}

export function limitsLine(cell: LimitsCell): string {
  const l = cell.latency_us;
  const trips = cell.redis_round_trips
    ? `  ${cell.redis_round_trips.per_request} Redis round trips/request${cell.redis_round_trips.min !== null ? ` (${cell.redis_round_trips.min}–${cell.redis_round_trips.max})` : ''}`
    : '';
  const statements = cell.postgres_statements_per_request !== null ? `  ${cell.postgres_statements_per_request} SQL/request` : '';
  return (
    `limits ${cell.layer.padEnd(13)} ${cell.store.padEnd(6)} c=${String(cell.concurrency).padEnd(3)} ` +
    `${String(cell.throughput_rps).padStart(9)} req/s  p50 ${us(l.p50)}  p95 ${us(l.p95)}  p99 ${us(l.p99)} µs${trips}${statements}` +
    `  (${cell.requests} ok, ${cell.errors} errors)`
  );
}

const us = (x: number) => x.toFixed(0).padStart(6);
const round2 = (x: number) => Math.round(x * 100) / 100;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
