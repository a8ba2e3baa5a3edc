export * from './loci-metrics';
export * from './metrics.module';
