/**
 * The small key-value store that limits live in: Redis in production, an in-process map in
 * the embedded default. Later issues (quotas, concurrency slots) add atomic operations here,
 * each implemented in both stores and covered by the same contract suite.
 */
export interface KvStore {
  readonly kind: 'redis' | 'memory';
  ping(): Promise<void>;
  get(key: string): Promise<string | null>;
  /** Sets a value; `ttlMs` makes it expire. */
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Adds `by` atomically and returns the new value. `ttlMs` is applied when the key has no
   * expiry yet (new, or set without one) and never extends an existing one: a counter given a
   * TTL can never end up living forever.
   */
  incrBy(key: string, by: number, options?: { ttlMs?: number }): Promise<number>;
  /** Remaining time to live in ms, -1 without expiry, -2 when the key does not exist. */
  ttlMs(key: string): Promise<number>;
  close(): Promise<void>;
}

export const KV_STORE = Symbol('KV_STORE');
