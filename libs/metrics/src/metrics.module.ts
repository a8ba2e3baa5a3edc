import { Global, Module } from '@nestjs/common';
import { LociMetrics } from './loci-metrics';

/**
 * One LociMetrics per application. Global, and injected @Optional() where series are counted
 * (the model gateway, ingestion), so a process without this module (the worker, the CLI)
 * counts nothing and needs nothing.
 */
@Global()
@Module({ providers: [LociMetrics], exports: [LociMetrics] })
export class MetricsModule {}
