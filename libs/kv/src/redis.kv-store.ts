import type { Cluster, Redis } from 'ioredis';
import { KvStore } from './kv-store';
import { connectRedis, RedisTarget } from './redis-connection';
import { RedisReadiness } from './redis-readiness';

// INCRBY and the first-write TTL in one round trip, atomically.
const INCR_WITH_TTL = `
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value`;

export class RedisKvStore implements KvStore {
  readonly kind = 'redis' as const;

  constructor(private readonly redis: Redis | Cluster) {}

  /** Every operation names one key, so on a Cluster each goes to its own slot's node. */
  static connect(target: string | RedisTarget): RedisKvStore {
    return new RedisKvStore(connectRedis(typeof target === 'string' ? { url: target } : target));
  }

  async ping(): Promise<void> {
    await this.ready();
    const answer = await this.redis.ping();
    if (answer !== 'PONG') throw new Error(`unexpected PING answer ${answer}`);
  }

  async get(key: string): Promise<string | null> {
    await this.ready();
    return this.redis.get(key);
  }

  async set(key: string, value: string, options?: { ttlMs?: number }): Promise<void> {
    await this.ready();
    if (options?.ttlMs) await this.redis.set(key, value, 'PX', options.ttlMs);
    else await this.redis.set(key, value);
  }

  async del(key: string): Promise<void> {
    await this.ready();
    await this.redis.del(key);
  }

  async incrBy(key: string, by: number, options?: { ttlMs?: number }): Promise<number> {
    await this.ready();
    const value = await this.redis.eval(INCR_WITH_TTL, 1, key, by, options?.ttlMs ?? 0);
    return Number(value);
  }

  async ttlMs(key: string): Promise<number> {
    await this.ready();
    return this.redis.pttl(key);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }

  /** Waits for the initial connection (commands fail fast while Redis is down). */
  private ready(): Promise<void> {
    return (this.readiness ??= new RedisReadiness(this.redis)).wait();
  }

  private readiness?: RedisReadiness;
}
