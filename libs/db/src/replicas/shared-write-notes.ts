/**
 * ReadRouter's notes of graphs' writes, shared by every process that reads (API instances behind
 * a balancer): a gb `remember` on one instance raises the graph's note, and a `query` on another
 * finds it and reads a replica that has replayed it. Kept in the limit store (Redis when
 * REDIS_URL or REDIS_CLUSTER_NODES is set, else in process, where one process is all there is);
 * libs/quota implements it on the limit store's connection, and both stores run one contract
 * suite (test/contract/write-notes.contract-spec.ts).
 */
export interface SharedWriteNotes {
  readonly kind: 'redis' | 'memory';
  /**
   * Raises the graph's note to `lsn`, never lowers it (two writes' notes may arrive in either
   * order), in one atomic step; a raised note lives `ttlMs`. A tenant makes at most
   * `maxPerTenant` notes a `ttlMs`: past that its notes go to its one overflow note, which every
   * read of its graphs also looks at (its own reads may wait longer; no other tenant's does).
   */
  raise(note: WriteNote): Promise<void>;
  /** The graph's note, or its tenant's overflow note if that is later; null when neither is live. One round trip. */
  lookUp(tenantId: string, graphId: number): Promise<bigint | null>;
}

export interface WriteNote {
  tenantId: string;
  graphId: number;
  /** The primary's WAL position after the write committed. */
  lsn: bigint;
  ttlMs: number;
  maxPerTenant: number;
}

/** Provided by the limit store's module when the app has one; ReadRouter keeps its notes to itself without it. */
export const SHARED_WRITE_NOTES = Symbol('SHARED_WRITE_NOTES');

/** The largest WAL position (64 bits) a note holds. */
export const MAX_LSN = (1n << 64n) - 1n;

export function assertWriteNote(note: WriteNote): void {
  if (note.lsn < 0n || note.lsn > MAX_LSN) throw new RangeError(`not a WAL position: ${note.lsn}`);
  if (!Number.isSafeInteger(note.graphId)) throw new RangeError(`graphId must be an integer, got ${note.graphId}`);
  if (!Number.isSafeInteger(note.ttlMs) || note.ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer, got ${note.ttlMs}`);
  if (!Number.isSafeInteger(note.maxPerTenant) || note.maxPerTenant < 0) throw new RangeError(`maxPerTenant must be a non-negative integer, got ${note.maxPerTenant}`);
}
