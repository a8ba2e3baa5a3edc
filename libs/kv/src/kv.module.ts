import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { KV_STORE, KvStore } from './kv-store';
import { MemoryKvStore } from './memory.kv-store';
import { describeRedisTarget, redisTargetOf } from './redis-connection';
import { RedisKvStore } from './redis.kv-store';

/** REDIS_URL or REDIS_CLUSTER_NODES set → Redis; otherwise the in-process store. */
export function openKvStore(settings: { redis: Parameters<typeof redisTargetOf>[0] }): KvStore {
  const target = redisTargetOf(settings.redis);
  return target ? RedisKvStore.connect(target) : new MemoryKvStore();
}

@Injectable()
class KvLifecycle implements OnApplicationShutdown {
  constructor(@Inject(KV_STORE) private readonly kv: KvStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.kv.close();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: KV_STORE,
      inject: [SETTINGS],
      useFactory: (settings: Settings): KvStore => {
        const kv = openKvStore(settings);
        new Logger('KvStore').log(
          kv.kind === 'redis'
            ? `${describeRedisTarget(redisTargetOf(settings.redis)!)} limit store`
            : 'in-process limit store: limits hold for this one process only; set REDIS_URL to run more than one',
        );
        return kv;
      },
    },
    KvLifecycle,
  ],
  exports: [KV_STORE],
})
export class KvModule {}
