import type { RedisTarget } from '@loci/kv';
import { LimitStore, LimitStoreOptions } from './limit-store';
import { MemoryLimitStore } from './memory.limit-store';
import { RedisLimitStore } from './redis.limit-store';

/**
 * A Redis URL or target (REDIS_URL, REDIS_CLUSTER_NODES) → Redis, shared by every instance;
 * otherwise the in-process store (one process only).
 */
export function openLimitStore(redis?: string | RedisTarget, options: LimitStoreOptions = {}): LimitStore {
  return redis ? RedisLimitStore.connect(redis, options) : new MemoryLimitStore();
}
