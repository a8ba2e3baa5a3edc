export * from './kv-store';
export * from './kv.module';
export * from './memory.kv-store';
export * from './redis.kv-store';
export * from './redis-readiness';
export * from './redis-connection';
