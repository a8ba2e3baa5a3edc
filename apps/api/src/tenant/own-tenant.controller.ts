import { Controller, Get, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import type { z } from 'zod';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { NotFoundError } from '@loci/common';
import { IngestionCountsRepository, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { openApiSchemaOf, ValidBody } from '@loci/http';
import { tenantResponse, tenantSettingsBody, toTenantResponse, toTenantWithSpend } from '../admin/admin.dto';
import { spendWindows } from '../admin/spend-windows';
import { TenantAdminService } from '../admin/tenant-admin.service';
import { tenantIdOf } from '../tenant-scope';

/**
 * A tenant admin's own tenant: its limits and what it spent today and this month, the numbers
 * the caps compare (the console's usage screen), and its own settings, which its admins change.
 * Operators change limits.
 */
@ApiTags('usage')
@ApiBearerAuth('jwt')
@Roles('admin')
@Controller('v1/tenant')
export class OwnTenantController {
  constructor(
    private readonly admin: TenantAdminService,
    private readonly ledger: SpendLedgerRepository,
    private readonly tenants: TenantsRepository,
    private readonly ingested: IngestionCountsRepository,
  ) {}

  @Get()
  @ApiOperation({
    summary: "Get the caller's tenant",
    description:
      "The caller's own tenant: its limits, what it spent today and this month, and what it took in today and stores (`ingestion`): the numbers its caps and quotas compare. Read-only: operators change limits.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async get(@CurrentPrincipal() principal: Principal) {
    const tenant = await this.admin.getTenant(tenantIdOf(principal));
    const [spent, ingested] = await Promise.all([this.ledger.tenantSpend(tenant.id, ...spendWindows(new Date())), this.ingested.use(tenant.id)]);
    return toTenantWithSpend(tenant, spent, ingested);
  }

  @Patch()
  @ApiOperation({
    summary: "Change the caller's tenant's settings",
    description:
      "The tenant's own settings: `answer_language` ('en', 'ru', or null for the /v1/query contract's Russian) is the language of the sentences Loci writes itself, such as the no-answer text; a request's Accept-Language naming one of them comes first. A field left out stays as it is.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async update(@CurrentPrincipal() principal: Principal, @ValidBody(tenantSettingsBody) body: z.output<typeof tenantSettingsBody>) {
    const tenant = await this.tenants.updateSettings(tenantIdOf(principal), { answerLanguage: body.answer_language });
    if (!tenant) throw new NotFoundError('No such tenant.');
    return toTenantResponse(tenant);
  }
}
