import { LimitStore, LimitStoreOptions } from './limit-store';
import { MemoryLimitStore } from './memory.limit-store';
import { RedisLimitStore } from './redis.limit-store';

/** REDIS_URL set → Redis (shared by every instance); otherwise the in-process store (one process only). */
export function openLimitStore(redisUrl?: string, options: LimitStoreOptions = {}): LimitStore {
  return redisUrl ? RedisLimitStore.connect(redisUrl, options) : new MemoryLimitStore();
}
