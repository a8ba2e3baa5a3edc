import type { Cluster, Redis } from 'ioredis';

/**
 * With ioredis's offline queue off (so commands fail fast while Redis is down), commands
 * issued while the client is still connecting must wait for it: at most `timeoutMs`, all
 * waiters sharing one listener.
 */
export class RedisReadiness {
  private connecting?: Promise<void>;

  constructor(
    private readonly redis: Redis | Cluster,
    private readonly timeoutMs = 2000,
  ) {}

  async wait(): Promise<void> {
    if (this.redis.status === 'ready') return;
    if (!['connecting', 'connect', 'wait', 'reconnecting'].includes(this.redis.status)) {
      throw new Error(`Redis is not reachable (${this.redis.status})`);
    }
    this.connecting ??= new Promise<void>((resolve, reject) => {
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error('Redis is not reachable'));
      }, this.timeoutMs);
      this.redis.once('ready', onReady);
    }).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }
}
