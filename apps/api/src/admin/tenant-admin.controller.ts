import { Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Res } from '@nestjs/common';
import { NotFoundError, usdToMicros } from '@loci/common';
import { IngestionCountsRepository, SpendLedgerRepository, TenantLifecycleRepository } from '@loci/db';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiProduces, ApiTags, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { openApiSchemaOf, ValidBody, ValidQuery, ApiErrors } from '@loci/http';
import { IngestWorker, TenantBacklogs } from '@loci/ingest';
import { OwnKeysService } from '@loci/llm';
import {
  createApiKeyBody,
  createdApiKeyResponse,
  createTenantBody,
  createUserBody,
  setLlmKeyBody,
  apiKeyResponse,
  updateApiKeyBody,
  updateLimitsBody,
  pageQuery,
  tenantHoldingsResponse,
  tenantListResponse,
  tenantResponse,
  toApiKeyResponse,
  toOperatorTenant,
  toTenantHoldingsResponse,
  toTenantResponse,
  toUserResponse,
  userResponse,
} from './admin.dto';
import { EXPORT_DESCRIPTION, EXPORT_LINES, exportQuery } from '../export/export.dto';
import { sendJsonLines } from '../export/ndjson-response';
import { TenantExportService } from '../export/tenant-export.service';
import { spendWindows } from './spend-windows';
import { TenantAdminService } from './tenant-admin.service';
import { TenantLifecycleService } from './tenant-lifecycle.service';

/** The operators' API: platform staff create and inspect tenants. */
@ApiTags('admin')
@ApiBearerAuth('jwt')
@Roles('operator')
@Controller('v1/admin/tenants')
export class TenantAdminController {
  constructor(
    private readonly admin: TenantAdminService,
    private readonly ownKeys: OwnKeysService,
    private readonly ingestion: IngestWorker,
    private readonly ledger: SpendLedgerRepository,
    private readonly lifecycle: TenantLifecycleService,
    private readonly exporter: TenantExportService,
    private readonly ingested: IngestionCountsRepository,
    private readonly backlogs: TenantBacklogs,
    private readonly tenantRows: TenantLifecycleRepository,
  ) {}

  @Post()
  @ApiOperation({
    summary: 'Create a tenant',
    description:
      'Creates a tenant with its tier and billing (platform key or its own key) and the limits of its tier. Its first admin is created next with POST /v1/admin/tenants/{tenantId}/users.',
  })
  @ApiCreatedResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async createTenant(@ValidBody(createTenantBody) body: z.output<typeof createTenantBody>) {
    return toTenantResponse(await this.admin.createTenant(body));
  }

  @Get()
  @ApiOperation({
    summary: 'List tenants with their spend and queues',
    description:
      "A page of tenants in creation order (`limit`, `offset`), each with its limits, today's and this month's spend against its caps, and its ingestion queue (jobs waiting, running, parked; documents processed in the last hour).",
  })
  @ApiOkResponse({
    description: "A page of tenants in creation order, each with today's and this month's spend and its queue (one statement each for the page).",
    schema: openApiSchemaOf(tenantListResponse, 'output'),
  })
  async listTenants(@ValidQuery(pageQuery) page: z.output<typeof pageQuery>) {
    const tenants = await this.admin.listTenants(page);
    const ids = tenants.map((t) => t.id);
    const [spent, ingested, backlogs] = await Promise.all([
      this.ledger.tenantsSpend(ids, ...spendWindows(new Date())),
      this.ingested.uses(ids),
      this.backlogs.of(ids),
    ]);
    return { items: tenants.map((t) => toOperatorTenant(t, spent.get(t.id), ingested.get(t.id), backlogs.get(t.id))), limit: page.limit, offset: page.offset };
  }

  @Get(':tenantId')
  @ApiOperation({
    summary: 'Get a tenant',
    description:
      "A tenant's tier, billing, limits, state, today's and this month's spend, its use of the ingestion quotas and its ingestion queue.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async getTenant(@Param('tenantId') tenantId: string) {
    const tenant = await this.admin.getTenant(tenantId);
    const [spent, ingested, backlogs] = await Promise.all([
      this.ledger.tenantSpend(tenant.id, ...spendWindows(new Date())),
      this.ingested.use(tenant.id),
      this.backlogs.of([tenant.id]),
    ]);
    return toOperatorTenant(tenant, spent, ingested, backlogs.get(tenant.id));
  }

  /** What the console's confirmation of a deletion names. */
  @Get(':tenantId/holdings')
  @ApiOperation({
    summary: 'Count what a tenant holds',
    description:
      'How many documents (uploads and gb texts), gb datasets, entities, facts, users and live API keys the tenant has: what deleting it removes.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantHoldingsResponse, 'output') })
  async holdings(@Param('tenantId') tenantId: string) {
    const holdings = await this.tenantRows.holdings(tenantId);
    if (!holdings) throw new NotFoundError('No such tenant.');
    return toTenantHoldingsResponse(tenantId, holdings);
  }

  @Patch(':tenantId/limits')
  @ApiOperation({
    summary: "Change a tenant's limits",
    description:
      'Changes caps, quota, concurrency (questions a client; ingestion jobs running at once), request rate and burst, ingestion quotas (documents and MB a day, MB stored), tier or billing: a field left out stays, null means unlimited. Documents deferred at a cap are tried again at once.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async updateLimits(@Param('tenantId') tenantId: string, @ValidBody(updateLimitsBody) body: z.output<typeof updateLimitsBody>) {
    const micros = (usd: number | null | undefined) => (usd === undefined ? undefined : usd === null ? null : usdToMicros(usd));
    const tenant = await this.admin.updateLimits(tenantId, {
      dailyCostCapMicros: micros(body.daily_cost_cap_usd),
      monthlyCostCapMicros: micros(body.monthly_cost_cap_usd),
      dailyQueryQuota: body.daily_query_quota,
      maxConcurrentQueries: body.max_concurrent_queries,
      maxRunningJobs: body.max_running_jobs,
      requestsPerMinute: body.requests_per_minute,
      requestBurst: body.request_burst,
      dailyDocumentQuota: body.daily_document_quota,
      dailyIngestMb: body.daily_ingest_mb,
      maxStoredMb: body.max_stored_mb,
      tier: body.tier,
      billing: body.billing,
    });
    // Documents deferred at a cap may fit now: try them at once rather than at the next sweep.
    await this.ingestion.resumeDeferred(tenant.id);
    return toTenantResponse(tenant);
  }

  /** Every request of the tenant is refused (403 tenant_suspended) and its ingestion paused, until resumed. */
  @Post(':tenantId/suspend')
  @ApiOperation({
    summary: 'Suspend a tenant',
    description:
      'Every request of the tenant is refused (403 `tenant_suspended`) and its ingestion paused until it is resumed. Idempotent.',
  })
  @HttpCode(200)
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async suspend(@Param('tenantId') tenantId: string) {
    return toTenantResponse(await this.lifecycle.suspend(tenantId));
  }

  @Post(':tenantId/resume')
  @ApiOperation({
    summary: 'Resume a suspended tenant',
    description:
      "Lifts a suspension: the tenant's requests and ingestion run again. Idempotent.",
  })
  @HttpCode(200)
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async resume(@Param('tenantId') tenantId: string) {
    return toTenantResponse(await this.lifecycle.resume(tenantId));
  }

  @Delete(':tenantId')
  @ApiOperation({
    summary: 'Delete a tenant and all its data',
    description:
      'Deletes every row of the tenant (documents, graph, vectors, jobs, users, keys, ledger) and its limit keys. Not undoable: export first.',
  })
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'Deleted with every row of the tenant (documents, graph, vectors, jobs, users, keys, ledger) and its limit keys. Not undoable: export first.',
  })
  async deleteTenant(@Param('tenantId') tenantId: string) {
    await this.lifecycle.delete(tenantId);
  }

  /** The tenant's export, as its admins get it (GET /v1/export); also for a suspended tenant. */
  @Get(':tenantId/export')
  @ApiOperation({
    summary: "Export a tenant's data",
    description:
      "The tenant's data as JSON lines, as its admins get it from GET /v1/export; also for a suspended tenant.",
  })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: EXPORT_DESCRIPTION, schema: EXPORT_LINES })
  async exportTenant(
    @Param('tenantId') tenantId: string,
    @ValidQuery(exportQuery) query: z.output<typeof exportQuery>,
    @Res() res: Response,
  ): Promise<void> {
    const lines = await this.exporter.open(tenantId, { vectors: query.vectors });
    await sendJsonLines(res, lines, `loci-export-${tenantId}.jsonl`);
  }

  @Put(':tenantId/llm-key')
  @ApiOperation({
    summary: "Set a tenant's own provider key",
    description:
      "Stores the tenant's own Anthropic or OpenAI key, sealed (AES-256-GCM); used for the tenant's model calls when it is billed `own_key`.",
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: "Stored sealed (AES-256-GCM); used for the tenant's calls when it is billed own_key." })
  async setLlmKey(@Param('tenantId') tenantId: string, @ValidBody(setLlmKeyBody) body: z.output<typeof setLlmKeyBody>) {
    await this.ownKeys.setKey(tenantId, body.provider, body.api_key);
  }

  @Post(':tenantId/users')
  @ApiOperation({
    summary: 'Create a user in a tenant',
    description:
      "Creates an admin or member of the tenant with a password; the tenant's first admin is made this way.",
  })
  @ApiErrors({ 409: 'A user with this email exists.' })
  @ApiCreatedResponse({ schema: openApiSchemaOf(userResponse, 'output') })
  async createUser(@Param('tenantId') tenantId: string, @ValidBody(createUserBody) body: z.output<typeof createUserBody>) {
    return toUserResponse(await this.admin.createUser(tenantId, body));
  }

  @Post(':tenantId/api-keys')
  @ApiOperation({
    summary: 'Create an API key for a tenant',
    description:
      'Creates a key with its scopes (`read`, `write`) and optional expiry. The secret is in this response only.',
  })
  @ApiCreatedResponse({ schema: openApiSchemaOf(createdApiKeyResponse, 'output') })
  async createApiKey(
    @Param('tenantId') tenantId: string,
    @ValidBody(createApiKeyBody) body: z.output<typeof createApiKeyBody>,
    @CurrentPrincipal() principal: Principal,
  ) {
    const created = await this.admin.createApiKey(tenantId, body.name, principal.kind === 'jwt' ? principal.userId : null, {
      scopes: body.scopes,
      expiresAt: body.expires_at,
      requestsPerMinute: body.requests_per_minute,
    });
    return { ...toApiKeyResponse(created.row), key: created.key };
  }

  @Patch(':tenantId/api-keys/:keyId')
  @ApiOperation({
    summary: "Rename a tenant's API key or set its own rate",
    description:
      "`name` and `requests_per_minute` (the key's own rate within its tenant's; null: the tenant's alone); a field left out stays as it is. From the key's next request on. A revoked key is not changed (409).",
  })
  @ApiErrors({ 404: 'No such tenant, or no such key of it.', 409: 'The key is revoked.' })
  @ApiOkResponse({ schema: openApiSchemaOf(apiKeyResponse, 'output') })
  async updateApiKey(@Param('tenantId') tenantId: string, @Param('keyId') keyId: string, @ValidBody(updateApiKeyBody) body: z.output<typeof updateApiKeyBody>) {
    return toApiKeyResponse(await this.admin.updateApiKey(tenantId, keyId, { name: body.name, requestsPerMinute: body.requests_per_minute }));
  }

  @Delete(':tenantId/api-keys/:keyId')
  @ApiOperation({
    summary: "Revoke a tenant's API key",
    description:
      'The key is refused from the next request on.',
  })
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked; the key fails from the next request on.' })
  async revokeApiKey(@Param('tenantId') tenantId: string, @Param('keyId') keyId: string) {
    await this.admin.revokeApiKey(tenantId, keyId);
  }
}
