import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { SpendLedgerRepository } from '@loci/db';
import { openApiSchemaOf } from '@loci/http';
import { tenantResponse, toTenantWithSpend } from '../admin/admin.dto';
import { spendWindows } from '../admin/spend-windows';
import { TenantAdminService } from '../admin/tenant-admin.service';
import { tenantIdOf } from '../tenant-scope';

/**
 * A tenant admin's own tenant: its limits and what it spent today and this month, the numbers
 * the caps compare (the console's usage screen). Read-only; operators change limits.
 */
@ApiTags('usage')
@ApiBearerAuth('jwt')
@Roles('admin')
@Controller('v1/tenant')
export class OwnTenantController {
  constructor(
    private readonly admin: TenantAdminService,
    private readonly ledger: SpendLedgerRepository,
  ) {}

  @Get()
  @ApiOperation({
    summary: "Get the caller's tenant",
    description:
      "The caller's own tenant: its limits and what it spent today and this month, the numbers its caps compare. Read-only: operators change limits.",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(tenantResponse, 'output') })
  async get(@CurrentPrincipal() principal: Principal) {
    const tenant = await this.admin.getTenant(tenantIdOf(principal));
    return toTenantWithSpend(tenant, await this.ledger.tenantSpend(tenant.id, ...spendWindows(new Date())));
  }
}
