export * from './limit-keys';
export * from './limit-store';
export * from './memory.limit-store';
export * from './open-limit-store';
export * from './redis.limit-store';
export * from './spend-control/quota.module';
export * from './spend-control/spend-control.service';
export * from './spend-control/spend-errors';
