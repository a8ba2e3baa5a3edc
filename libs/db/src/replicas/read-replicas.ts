import { sql } from 'drizzle-orm';
import { Database, queryRows } from '../database';
import { parseLsn } from './lsn';

/**
 * up: serves reads; lagging: answers but is further behind than the allowed lag; down: did not
 * answer its last check (or a read on it failed), or is no standby (promoted).
 */
export type ReplicaStatus = 'up' | 'lagging' | 'down';

export interface ReplicaState {
  /** host:port/database, without credentials: what /readyz and /metrics call it. */
  name: string;
  status: ReplicaStatus;
  /** How long ago the primary had written what this replica has not replayed yet; null until checked, or down. */
  lagMs: number | null;
  /** Why it is down, in the driver's or the server's words. */
  reason?: string;
}

export interface Replica {
  readonly name: string;
  readonly database: Database;
  status: ReplicaStatus;
  lagMs: number | null;
  /** The last WAL position it was seen to have replayed. */
  replayLsn: bigint | null;
  reason?: string;
}

/** A check that gets no answer in this long marks the replica down (a host that drops packets). */
const CHECK_TIMEOUT_MS = 2_000;
/** Positions of the primary remembered to date a replica's lag; older ones are all replayed or the lag is huge anyway. */
const MAX_SAMPLES = 1_000;

/**
 * The streaming replicas of one primary, checked every `checkEveryMs`: each replica's replayed
 * WAL position, and from it how far behind the primary it is in time.
 *
 * Lag is measured against the primary's own positions, not with pg_last_xact_replay_timestamp():
 * an idle primary commits nothing, so that timestamp ages while the replica is fully caught up,
 * and a replica whose stream broke looks current by it. Each check notes the primary's WAL
 * position and when it was seen; a replica's lag is the age of the oldest noted position it has
 * not replayed (0 when it has replayed all), exact to one check interval.
 */
export class ReadReplicas {
  readonly replicas: Replica[];
  private readonly samples: Array<{ lsn: bigint; at: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly primary: Database,
    replicas: Array<{ name: string; database: Database }>,
    readonly maxLagMs: number,
    private readonly checkEveryMs = 250,
  ) {
    this.replicas = replicas.map(({ name, database }) => ({ name, database, status: 'down', lagMs: null, replayLsn: null, reason: 'not checked yet' }));
  }

  /** Checks now, then every checkEveryMs (a timer that does not keep the process alive). */
  async start(): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), this.checkEveryMs);
    this.timer.unref();
  }

  /** The replicas a read may go to now: up, within the allowed lag. */
  usable(): Replica[] {
    return this.replicas.filter((replica) => replica.status === 'up');
  }

  states(): ReplicaState[] {
    return this.replicas.map(({ name, status, lagMs, reason }) => ({ name, status, lagMs, ...(reason && status === 'down' ? { reason } : {}) }));
  }

  /** A read on it failed as a store fault: no more reads until a check finds it answering again. */
  markDown(replica: Replica, error: unknown): void {
    replica.status = 'down';
    replica.lagMs = null;
    replica.reason = error instanceof Error ? error.message : String(error);
  }

  /**
   * The primary's WAL flush position now: at or past the end of every commit made before, since a
   * commit answers once its WAL is flushed. Not the insert position: that includes what open
   * transactions have written and no commit has flushed yet, which no replica receives until one
   * does (one tenant's long ingestion would hold every other tenant's reads to their full wait,
   * and make the replica look as far behind as that transaction is long). Where commits do not
   * wait for the flush (synchronous_commit off), the insert position is the one that covers them.
   */
  async primaryPosition(): Promise<bigint> {
    const [row] = await queryRows<{ lsn: string }>(
      this.primary.db,
      sql`SELECT (CASE WHEN current_setting('synchronous_commit') = 'off' THEN pg_current_wal_insert_lsn() ELSE pg_current_wal_flush_lsn() END)::text AS lsn`,
    );
    return parseLsn(row.lsn);
  }

  /**
   * Waits until `replica` has replayed `lsn`, asking it every few milliseconds, for at most
   * `maxWaitMs`: true when it has (its replay position is noted), false past the wait or when it
   * does not answer.
   */
  async waitForReplay(replica: Replica, lsn: bigint, maxWaitMs: number): Promise<boolean> {
    const deadline = Date.now() + maxWaitMs;
    for (let pause = 2; ; pause = Math.min(pause * 2, 20)) {
      if (replica.replayLsn !== null && replica.replayLsn >= lsn) return true;
      if (Date.now() >= deadline) return false;
      try {
        const [row] = await queryRows<{ lsn: string | null }>(replica.database.db, sql`SELECT pg_last_wal_replay_lsn()::text AS lsn`);
        if (row.lsn !== null) replica.replayLsn = maxLsn(replica.replayLsn, parseLsn(row.lsn));
      } catch {
        return false;
      }
      if (replica.replayLsn !== null && replica.replayLsn >= lsn) return true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
    }
  }

  /** One round of checks; a round still running is shared rather than doubled. */
  check(): Promise<void> {
    return (this.checking ??= this.checkOnce().finally(() => (this.checking = undefined)));
  }

  private async checkOnce(): Promise<void> {
    try {
      this.note(await this.primaryPosition());
    } catch {
      // The primary did not answer: the replicas' lag cannot be dated this round; keep the last.
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
    this.forgetReplayed();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    try {
      const [row] = await withTimeout(
        queryRows<{ lsn: string | null; standby: boolean }>(
          replica.database.db,
          sql`SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS standby`,
        ),
        CHECK_TIMEOUT_MS,
      );
      // A promoted server no longer follows this primary: reading it would serve another history.
      if (!row.standby || row.lsn === null) return this.markDown(replica, new Error('not a standby of the primary'));
      replica.replayLsn = maxLsn(replica.replayLsn, parseLsn(row.lsn));
      replica.lagMs = this.lagOf(replica.replayLsn);
      replica.status = replica.lagMs > this.maxLagMs ? 'lagging' : 'up';
      replica.reason = undefined;
    } catch (error) {
      this.markDown(replica, error);
    }
  }

  private note(lsn: bigint): void {
    const last = this.samples.at(-1);
    if (last && last.lsn >= lsn) return;
    this.samples.push({ lsn, at: Date.now() });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  private lagOf(replayed: bigint): number {
    const behind = this.samples.find((sample) => sample.lsn > replayed);
    return behind ? Date.now() - behind.at : 0;
  }

  /** Positions every replica has replayed date nothing any more; the newest is kept. */
  private forgetReplayed(): void {
    const slowest = this.replicas.reduce<bigint | null>(
      (least, r) => (r.replayLsn === null ? least : least === null || r.replayLsn < least ? r.replayLsn : least),
      null,
    );
    if (slowest === null) return;
    while (this.samples.length > 1 && this.samples[0].lsn <= slowest) this.samples.shift();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    await Promise.all(this.replicas.map((replica) => replica.database.close()));
  }
}

function maxLsn(a: bigint | null, b: bigint): bigint {
  return a !== null && a > b ? a : b;
}

/** `work`, or a rejection once `ms` have passed without its answer. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** host:port/database of a postgres:// URL, without its credentials or parameters. */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}
