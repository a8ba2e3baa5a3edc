import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from '@loci/auth';
import { ConfigModule, Settings } from '@loci/config';
import { DbModule } from '@loci/db';
import { HttpExceptionFilter } from '@loci/http';
import { KvModule } from '@loci/kv';
import { IngestModule } from '@loci/ingest';
import { LlmModule } from '@loci/llm';
import { QuotaModule } from '@loci/quota';
import { GB_QUERY_SETTINGS, GbQueryService, GbQuerySettings, RetrievalModule } from '@loci/retrieval';
import { PlatformAdminController } from './admin/platform-admin.controller';
import { TenantAdminController } from './admin/tenant-admin.controller';
import { TenantAdminService } from './admin/tenant-admin.service';
import { TenantLifecycleService } from './admin/tenant-lifecycle.service';
import { ApiKeysController } from './api-keys/api-keys.controller';
import { AuthController } from './auth/auth.controller';
import { PasswordController } from './auth/password.controller';
import { BulkLoadController } from './bulk-load/bulk-load.controller';
import { DocumentContentsController } from './documents/document-contents.controller';
import { DocumentContentsService } from './documents/document-contents.service';
import { DocumentsController } from './documents/documents.controller';
import { TenantExportController } from './export/tenant-export.controller';
import { TenantExportService } from './export/tenant-export.service';
import { GbDatasetsController } from './gb/gb-datasets.controller';
import { GbQueryController } from './gb/gb-query.controller';
import { GbTrajectoriesController } from './gb/gb-trajectories.controller';
import { GbTrajectoriesService } from './gb/gb-trajectories.service';
import { RememberController } from './gb/remember.controller';
import { GraphBrowseController } from './graph/graph-browse.controller';
import { GraphBrowseService } from './graph/graph-browse.service';
import { HealthController } from './health/health.controller';
import { TenantWorkInterceptor } from './limits/tenant-work.interceptor';
import { RecordRefusalsInterceptor } from './limits/record-refusals.interceptor';
import { RequestRateInterceptor } from './limits/request-rate.interceptor';
import { RefusalCounter } from './limits/refusal-counter';
import { loggerOptions } from './logging';
import { McpController } from './mcp/mcp.controller';
import { McpOAuthProvider } from './mcp/oauth/mcp-oauth.provider';
import { McpOAuthTokens } from './mcp/oauth/mcp-oauth-tokens';
import { MeController } from './me/me.controller';
import { ApiMetricsModule } from './metrics/api-metrics.module';
import { OperatorBootstrapService } from './operator-bootstrap.service';
import { QueryController } from './query/query.controller';
import { QueryService } from './query/query.service';
import { OwnTenantController } from './tenant/own-tenant.controller';
import { UsageController } from './usage/usage.controller';
import { TenantUsersAdminController } from './users/tenant-users-admin.controller';
import { TenantUsersService } from './users/tenant-users.service';
import { UsersController } from './users/users.controller';

@Module({})
export class AppModule {
  /**
   * `settings` is for tests; the server loads them from the environment. `logDestination` (tests)
   * receives the JSON log lines instead of stdout.
   */
  static forRoot(settings: Settings, logDestination?: NodeJS.WritableStream): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(settings),
        LoggerModule.forRoot(loggerOptions(settings, logDestination)),
        DbModule,
        KvModule,
        AuthModule,
        QuotaModule,
        LlmModule,
        IngestModule,
        RetrievalModule,
        TerminusModule.forRoot({ logger: false }),
        ApiMetricsModule,
      ],
      controllers: [
        AuthController,
        PasswordController,
        MeController,
        TenantAdminController,
        PlatformAdminController,
        ApiKeysController,
        UsersController,
        TenantUsersAdminController,
        HealthController,
        DocumentsController,
        DocumentContentsController,
        BulkLoadController,
        RememberController,
        GbQueryController,
        GbTrajectoriesController,
        GbDatasetsController,
        QueryController,
        UsageController,
        TenantExportController,
        GraphBrowseController,
        OwnTenantController,
        McpController,
      ],
      providers: [
        TenantAdminService,
        TenantUsersService,
        TenantLifecycleService,
        TenantExportService,
        GraphBrowseService,
        DocumentContentsService,
        OperatorBootstrapService,
        QueryService,
        GbQueryService,
        GbTrajectoriesService,
        RefusalCounter,
        McpOAuthTokens,
        McpOAuthProvider,
        { provide: GB_QUERY_SETTINGS, useValue: { ...settings.gb } satisfies GbQuerySettings },
        { provide: APP_FILTER, useClass: HttpExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: RecordRefusalsInterceptor },
        { provide: APP_INTERCEPTOR, useClass: RequestRateInterceptor },
        { provide: APP_INTERCEPTOR, useClass: TenantWorkInterceptor },
      ],
    };
  }
}
