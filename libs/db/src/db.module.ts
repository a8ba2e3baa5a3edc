import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { Database, DATABASE, queryRows, SESSION_SETTINGS } from './database';
import { sql } from 'drizzle-orm';
import { findMigrationsFolder } from './migrations-folder';
import { openDatabase } from './open-database';
import { openReadRouter } from './replicas/open-read-router';
import { ReadRouter } from './replicas/read-router';
import { SHARED_WRITE_NOTES, SharedWriteNotes } from './replicas/shared-write-notes';
import { ApiKeysRepository } from './repositories/api-keys.repository';
import { BulkLoadRepository } from './repositories/bulk-load.repository';
import { DocumentsRepository } from './repositories/documents.repository';
import { GeoBackfillRepository } from './repositories/geo-backfill.repository';
import { GraphBrowseRepository } from './repositories/graph-browse.repository';
import { GraphReadsRepository } from './repositories/graph-reads.repository';
import { GraphWritesRepository } from './repositories/graph-writes.repository';
import { GraphsRepository } from './repositories/graphs.repository';
import { InferencesRepository } from './repositories/inferences.repository';
import { IngestionCountsRepository } from './repositories/ingestion-counts.repository';
import { LimitRefusalsRepository } from './repositories/limit-refusals.repository';
import { McpOauthRepository } from './repositories/mcp-oauth.repository';
import { PlatformLimitsRepository } from './repositories/platform-limits.repository';
import { QuestionCountsRepository } from './repositories/question-counts.repository';
import { ReembedRepository } from './repositories/reembed.repository';
import { RequestLogsRepository } from './repositories/request-logs.repository';
import { SpendLedgerRepository } from './repositories/spend-ledger.repository';
import { UsageRepository } from './repositories/usage.repository';
import { TenantExportRepository } from './repositories/tenant-export.repository';
import { TenantLifecycleRepository } from './repositories/tenant-lifecycle.repository';
import { TenantsRepository } from './repositories/tenants.repository';
import { UsersRepository } from './repositories/users.repository';
import { TableStatisticsKeeper } from './table-statistics.keeper';

export { INGESTED_TABLES, TableStatisticsKeeper } from './table-statistics.keeper';

export const MIGRATIONS_FOLDER = Symbol('MIGRATIONS_FOLDER');

@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(DATABASE) private readonly database: Database,
    private readonly reads: ReadRouter,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.reads.close();
    await this.database.close();
  }
}

/**
 * Behind a transaction pooler the startup options that carry SESSION_SETTINGS are dropped
 * (PgBouncer's ignore_startup_parameters): they must come from the role or the pooler
 * (`ALTER ROLE … SET hnsw.iterative_scan = relaxed_order`, or PgBouncer's connect_query), else
 * filtered vector searches return fewer rows than asked. Said once at boot, loudly.
 */
async function warnWithoutSessionSettings(database: Database, logger: Logger): Promise<void> {
  for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
    const [row] = await queryRows<{ value: string | null }>(database.db, sql`SELECT current_setting(${name}, true) AS value`);
    if (row?.value !== value) {
      logger.warn(`${name} is ${row?.value ?? 'unset'} through the pooler, not ${value}: set it for the role (ALTER ROLE … SET ${name} = ${value}); docs/SCALING.md`);
    }
  }
}

const repositories = [
  TenantsRepository,
  UsersRepository,
  ApiKeysRepository,
  McpOauthRepository,
  InferencesRepository,
  GraphsRepository,
  BulkLoadRepository,
  DocumentsRepository,
  GeoBackfillRepository,
  GraphWritesRepository,
  GraphReadsRepository,
  GraphBrowseRepository,
  RequestLogsRepository,
  PlatformLimitsRepository,
  UsageRepository,
  SpendLedgerRepository,
  LimitRefusalsRepository,
  QuestionCountsRepository,
  IngestionCountsRepository,
  TenantLifecycleRepository,
  TenantExportRepository,
  ReembedRepository,
];

@Global()
@Module({
  providers: [
    { provide: MIGRATIONS_FOLDER, useFactory: () => findMigrationsFolder() },
    {
      provide: DATABASE,
      inject: [SETTINGS, MIGRATIONS_FOLDER],
      // Migrating inside the factory means no provider ever sees an unmigrated store.
      useFactory: async (settings: Settings, migrationsFolder: string): Promise<Database> => {
        const logger = new Logger('Database');
        const database = await openDatabase(settings);
        logger.log(
          database.kind === 'pglite'
            ? `embedded PGlite store in ${settings.dataDir}/pglite (single process only)`
            : 'PostgreSQL store (DATABASE_URL)',
        );
        if (database.pooled) await warnWithoutSessionSettings(database, logger);
        if (settings.database.migrateOnStart) {
          await database.migrate(migrationsFolder);
          logger.log('migrations applied');
        }
        return database;
      },
    },
    {
      // Questions', browsing's, usage reports' and exports' reads: streaming replicas when DATABASE_READ_URL names any.
      // Graphs' write notes shared through the limit store when the app has one (QuotaModule provides it).
      provide: ReadRouter,
      inject: [SETTINGS, DATABASE, { token: SHARED_WRITE_NOTES, optional: true }],
      useFactory: async (settings: Settings, database: Database, shared?: SharedWriteNotes): Promise<ReadRouter> => {
        const reads = await openReadRouter(settings, database, shared ?? undefined);
        if (reads.routes) new Logger('Database').log(`questions, browsing, usage reports and exports read on ${reads.states().length} replica(s) (DATABASE_READ_URL)`);
        return reads;
      },
    },
    DatabaseLifecycle,
    TableStatisticsKeeper,
    ...repositories,
  ],
  exports: [DATABASE, ReadRouter, MIGRATIONS_FOLDER, TableStatisticsKeeper, ...repositories],
})
export class DbModule {}
