import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { logDestination } from '@loci/common';
import { ConfigModule, Settings } from '@loci/config';
import { DbModule, errorLogSerializer } from '@loci/db';
import { IngestModule } from '@loci/ingest';
import { KvModule } from '@loci/kv';
import { LlmModule } from '@loci/llm';
import { QuotaModule } from '@loci/quota';

/**
 * The ingestion worker: the same store, limit store and model layer as the API, no HTTP. It
 * consumes the durable job queue in Postgres; run as many replicas as the load needs.
 */
@Module({})
export class WorkerModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(settings),
        // Errors are logged as their records, never with drizzle's statement parameters.
        LoggerModule.forRoot({
          pinoHttp: [{ level: settings.logLevel, serializers: { err: errorLogSerializer, error: errorLogSerializer } }, logDestination(settings.logFormat)],
        }),
        DbModule,
        KvModule,
        QuotaModule,
        LlmModule,
        IngestModule,
      ],
    };
  }
}
