import type { SQL } from 'drizzle-orm';
import { asStep, workMemo } from '@loci/common';
import { Database, Db, queryRows } from '../database';
import { PreparableDatabase, queryPreparedRows } from '../prepared-statements';
import { isStoreUnavailable, sqlState } from '../postgres-errors';
import { ReadReplicas, Replica, ReplicaState, withTimeout } from './read-replicas';
import { SharedWriteNotes } from './shared-write-notes';

/**
 * What a routed read is about, so it sees the writes noted for it: one of a tenant's graphs (a
 * question, browsing), a whole tenant (no graphId: its usage report, its export), or every tenant
 * (tenantId null: an operator's usage report). A read waits only for a write noted for the same scope.
 */
export interface ReadScope {
  tenantId: string | null;
  graphId?: number;
}

/** A scope's last write a client will read back: the primary's WAL position after its commit. */
interface PendingWrite {
  lsn: bigint;
  at: number;
  /** A wait for a replica ran out: this scope's reads go to the primary until one has replayed it. */
  waitedOut: boolean;
  /** The wait under way for a replica that replays it: statements run side by side share it (one wait, counted once). */
  waiting?: Promise<Replica | undefined>;
}

/** Reads routed this process's life, by where they went: for /metrics. */
export interface ReadCounts {
  replica: number;
  primary: number;
  /** Reads that failed on a replica (down, or cancelled by replay) and were answered by the primary. */
  fallback: number;
  /** Reads that waited for a replica to replay the client's own write, and those that gave up and read the primary. */
  waited: number;
  waitedOut: number;
  /** Reads of a graph sent to the primary because the shared notes did not answer: a note there could not be seen. */
  notesUnreachable: number;
  /** Writes whose note could not be shared; each waited (at most maxWaitMs) for the replicas to replay it before answering. */
  notesUnshared: number;
}

/** How long a noted write is remembered at least: a replica that lags longer is skipped anyway. */
const PENDING_WRITE_MS = 60_000;
/** Scopes with a write not yet replayed everywhere, at most (the oldest forgotten first). */
const MAX_PENDING_WRITES = 100_000;
/** Graphs one tenant notes in the shared store a note life, at most; past it they share its one overflow note. */
const MAX_SHARED_NOTES_PER_TENANT = 1_000;
/**
 * The shared notes (Redis) answer in well under a millisecond; one that has not answered in this
 * long is taken as down. Generous, so an event loop held up on a loaded machine is not taken for it.
 */
const SHARED_NOTES_TIMEOUT_MS = 500;
/** After the shared notes failed, this process does not ask them for this long: its graphs' reads go to the primary. */
const SHARED_NOTES_RETRY_MS = 2_000;
/** The answer of shared notes that did not answer: a note may be there, unseen. */
const UNKNOWN = Symbol('unknown write');
let routers = 0;

/**
 * Where question retrieval's, graph browsing's, usage reports' and exports' statements run: on a
 * streaming replica when one is up and within the allowed lag (round robin), otherwise on the
 * primary. Without replicas (the embedded store, or no DATABASE_READ_URL) every read is the
 * primary's, as before.
 *
 * Read-your-writes: a write a client reads back at once (gb remember, then query; a document
 * processed, then a question) notes the primary's WAL position after its commit for its scope
 * (noteWrite). A read of that scope goes to a replica that has replayed it, or waits for one for
 * at most maxWaitMs, or reads the primary. A graph's note is also shared with every other
 * process through `shared` (the limit store: Redis, or this process alone), so a client whose next
 * request lands on another API instance is held to it too; a read of a graph looks the shared
 * note up once a request (one round trip, only while a replica is usable), and reads the primary
 * when the shared notes do not answer. A tenant's or every tenant's note (a usage report, an
 * export) is read back by the request that made it, so it stays in this process. Record 0071.
 *
 * Routed statements are single reads (no transaction, no session state), so one that fails on a
 * replica because the replica went away, or because replay cancelled it, runs again on the
 * primary: a replica stopping mid-traffic costs latency, not an error.
 */
export class ReadRouter {
  private readonly pending = new Map<string, PendingWrite>();
  private next = 0;
  readonly counts: ReadCounts = { replica: 0, primary: 0, fallback: 0, waited: 0, waitedOut: 0, notesUnreachable: 0, notesUnshared: 0 };
  /** Until when the shared notes are taken as down (ms since the epoch). */
  private sharedDownUntil = 0;
  /** Names this router's lookups in a request's memo (two apps in one process each have theirs). */
  private readonly memoPrefix = `read-router:${++routers}:`;

  constructor(
    private readonly primary: Database,
    private readonly replicas?: ReadReplicas,
    private readonly maxWaitMs = 0,
    private readonly shared?: SharedWriteNotes,
  ) {}

  /** True when reads can go anywhere but the primary. */
  get routes(): boolean {
    return (this.replicas?.replicas.length ?? 0) > 0;
  }

  /** Each replica's state (none without replicas). */
  states(): ReplicaState[] {
    return this.replicas?.states() ?? [];
  }

  /** The rows of one read-only statement about `scope`, from a replica or the primary. */
  rows<T>(query: SQL, scope: ReadScope): Promise<T[]> {
    return this.read(scope, (db) => queryRows<T>(db, query));
  }

  /**
   * rows() for a hot statement prepared by name on the connection it runs on (prepared-statements.ts):
   * only one whose rows do not depend on its plan (no approximate vector search).
   */
  preparedRows<T>(label: string, query: SQL, scope: ReadScope): Promise<T[]> {
    return this.read(scope, (db, database) => queryPreparedRows<T>(db, database, label, query));
  }

  /**
   * One read-only statement about `scope` built with drizzle's query builder (its columns mapped
   * as on the primary), on a replica or the primary. `statement` may run twice, on the primary
   * after a replica failed it: it must only read.
   */
  async read<T>(scope: ReadScope, statement: (db: Db, database: PreparableDatabase) => Promise<T>): Promise<T> {
    // A question's statements are its steps (QuestionTurns): one may wait for a lighter tenant's
    // question, or for a statement slot, before it is sent; outside a question it is sent at once.
    const replica = await this.pick(scope);
    if (!replica) {
      this.counts.primary++;
      return asStep(() => statement(this.primary.db, this.primary));
    }
    try {
      const result = await asStep(() => statement(replica.database.db, replica.database));
      this.counts.replica++;
      return result;
    } catch (error) {
      if (!isReplicaFault(error)) throw error;
      if (isStoreUnavailable(error)) this.replicas?.markDown(replica, error);
      this.counts.fallback++;
      return asStep(() => statement(this.primary.db, this.primary));
    }
  }

  /**
   * After a write about `scope` has committed on the primary: its reads must see it. The note is
   * the primary's position now, at or past the end of every commit made before, so noting a
   * scope right before reading it makes the read see everything committed until then (a usage
   * report, an export). One statement on the primary; nothing without replicas.
   *
   * `committedAt`: when the write committed, for a write another process made (a document the
   * worker finished): one older than a note is kept is not noted, since every replica a read may
   * use has replayed it by then.
   *
   * A graph's note is shared (one more round trip, to the limit store). When it cannot be, the
   * write waits for the usable replicas to replay it (at most maxWaitMs) before it answers: another
   * instance reads the primary while the shared notes are down, and finds replicas that hold the
   * write once they are back.
   */
  async noteWrite(scope: ReadScope, committedAt?: Date): Promise<void> {
    if (!this.replicas || !this.routes) return;
    if (committedAt && Date.now() - committedAt.getTime() > this.noteLifeMs) return;
    const lsn = await this.replicas.primaryPosition();
    const key = keyOf(scope);
    this.pending.delete(key); // re-inserted last: the map stays in order of writes
    this.pending.set(key, { lsn, at: Date.now(), waitedOut: false });
    if (this.pending.size > MAX_PENDING_WRITES) this.pending.delete(this.pending.keys().next().value as string);
    const graph = sharedScope(scope);
    if (this.shared && graph) await this.share(graph, lsn);
  }

  private async share(graph: { tenantId: string; graphId: number }, lsn: bigint): Promise<void> {
    try {
      if (Date.now() < this.sharedDownUntil) throw new Error('the shared notes did not answer a moment ago');
      await withTimeout(this.shared!.raise({ ...graph, lsn, ttlMs: this.noteLifeMs, maxPerTenant: MAX_SHARED_NOTES_PER_TENANT }), SHARED_NOTES_TIMEOUT_MS);
    } catch {
      this.sharedDownUntil = Math.max(this.sharedDownUntil, Date.now() + SHARED_NOTES_RETRY_MS);
      this.counts.notesUnshared++;
      const replicas = this.replicas!;
      await Promise.all(replicas.usable().map((replica) => replicas.waitForReplay(replica, lsn, this.maxWaitMs)));
    }
  }

  private async pick(scope: ReadScope): Promise<Replica | undefined> {
    if (!this.replicas) return undefined;
    const usable = this.replicas.usable();
    if (usable.length === 0) return undefined;
    const write = await this.pendingWrite(scope);
    if (write === UNKNOWN) {
      this.counts.notesUnreachable++;
      return undefined;
    }
    if (!write) return this.roundRobin(usable);
    const caughtUp = usable.filter((replica) => replica.replayLsn !== null && replica.replayLsn >= write.lsn);
    if (caughtUp.length > 0) return this.roundRobin(caughtUp);
    if (write.waitedOut || this.maxWaitMs === 0) return undefined;
    write.waiting ??= this.waitForReplay(write, this.roundRobin(usable)).finally(() => (write.waiting = undefined));
    return write.waiting;
  }

  private async waitForReplay(write: PendingWrite, replica: Replica): Promise<Replica | undefined> {
    this.counts.waited++;
    if (await this.replicas!.waitForReplay(replica, write.lsn, this.maxWaitMs)) return replica;
    // The question's other statements go straight to the primary instead of each waiting again.
    write.waitedOut = true;
    this.counts.waitedOut++;
    return undefined;
  }

  /**
   * The scope's write still to be seen, if any: this process's note or the shared one, whichever
   * is later; UNKNOWN when the shared notes did not answer.
   */
  private async pendingWrite(scope: ReadScope): Promise<PendingWrite | typeof UNKNOWN | undefined> {
    const own = this.ownWrite(scope);
    const graph = sharedScope(scope);
    const shared = this.shared && graph ? await this.sharedWrite(graph) : undefined;
    if (shared === UNKNOWN) return UNKNOWN;
    const later = shared && (!own || shared.lsn > own.lsn) ? shared : own;
    return later && !this.replayedEverywhere(later) ? later : undefined;
  }

  /** This process's note of the scope; one every replica has replayed is forgotten. */
  private ownWrite(scope: ReadScope): PendingWrite | undefined {
    const key = keyOf(scope);
    const write = this.pending.get(key);
    if (!write) return undefined;
    if (this.replayedEverywhere(write) || Date.now() - write.at > this.noteLifeMs) {
      this.pending.delete(key);
      return undefined;
    }
    return write;
  }

  /**
   * The graph's shared note, looked up once a request (or job): its other statements share the
   * answer, and a wait that ran out (waitedOut) holds for them too.
   */
  private sharedWrite(graph: { tenantId: string; graphId: number }): Promise<PendingWrite | typeof UNKNOWN | undefined> {
    return workMemo(`${this.memoPrefix}${keyOf(graph)}`, async () => {
      if (Date.now() < this.sharedDownUntil) return UNKNOWN;
      try {
        const lsn = await withTimeout(this.shared!.lookUp(graph.tenantId, graph.graphId), SHARED_NOTES_TIMEOUT_MS);
        return lsn === null ? undefined : { lsn, at: Date.now(), waitedOut: false };
      } catch {
        this.sharedDownUntil = Math.max(this.sharedDownUntil, Date.now() + SHARED_NOTES_RETRY_MS);
        return UNKNOWN;
      }
    });
  }

  private replayedEverywhere(write: PendingWrite): boolean {
    return this.replicas!.replicas.every((replica) => replica.replayLsn !== null && replica.replayLsn >= write.lsn);
  }

  /** How long a note is kept: past it a replica that has not replayed the write lags beyond the bound and is skipped anyway. */
  private get noteLifeMs(): number {
    return Math.max(PENDING_WRITE_MS, 2 * (this.replicas?.maxLagMs ?? 0));
  }

  private roundRobin(replicas: Replica[]): Replica {
    this.next = (this.next + 1) % 1_000_000;
    return replicas[this.next % replicas.length];
  }

  async close(): Promise<void> {
    await this.replicas?.close();
  }
}

const keyOf = (scope: ReadScope) => `${scope.tenantId ?? '*'}:${scope.graphId ?? '*'}`;

/** A graph's scope is shared between processes; a tenant's or every tenant's is read back by the request that noted it. */
function sharedScope(scope: ReadScope): { tenantId: string; graphId: number } | undefined {
  return scope.tenantId !== null && scope.graphId !== undefined ? { tenantId: scope.tenantId, graphId: scope.graphId } : undefined;
}

/**
 * A failure the primary would not have: the replica's connection (down, restarting, refused), or
 * a statement cancelled because replay needed the rows it read (40001 on a standby, 57014 is a
 * statement timeout and is not retried).
 */
function isReplicaFault(error: unknown): boolean {
  return isStoreUnavailable(error) || sqlState(error) === '40001';
}
