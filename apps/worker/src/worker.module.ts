import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, Settings } from '@loci/config';
import { DbModule } from '@loci/db';
import { KvModule } from '@loci/kv';

/**
 * The ingestion worker: the same store and limit store as the API, no HTTP. The job consumer
 * (durable queue in Postgres) arrives with the ingestion issue; until then the process only
 * connects, migrates when asked, and waits.
 */
@Module({})
export class WorkerModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(settings),
        LoggerModule.forRoot({ pinoHttp: { level: settings.logLevel } }),
        DbModule,
        KvModule,
      ],
    };
  }
}
