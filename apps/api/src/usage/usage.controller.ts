import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { UsageRepository } from '@loci/db';
import { openApiSchemaOf, ValidQuery } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import { RefusalCounter } from '../limits/refusal-counter';
import { toUsageResponse, usageQuery, usageResponse } from './usage.dto';

/**
 * Usage per tenant per UTC day, from the inference ledger and the request log: questions,
 * model calls, tokens, cost split by who pays (platform or the tenant's own key), the requests
 * refused by a limit, by kind; and the documents and MB of text taken in (ingestion quotas).
 */
@ApiTags('usage')
@ApiBearerAuth('jwt')
@Controller('v1')
export class UsageController {
  constructor(
    private readonly usage: UsageRepository,
    // Refusals are written once a second (refusal-counter.ts): this instance's are written first.
    private readonly refusals: RefusalCounter,
  ) {}

  @Get('admin/usage')
  @ApiOperation({
    summary: 'Usage by tenant and day',
    description:
      'Questions, model calls, tokens, cost by payer and refusals by kind, per tenant per UTC day, for every tenant or one (`tenant_id`), `from` inclusive to `to` exclusive (default: the last 30 days).',
  })
  @Roles('operator')
  @ApiOkResponse({ schema: openApiSchemaOf(usageResponse, 'output') })
  async platformUsage(@ValidQuery(usageQuery) range: z.output<typeof usageQuery>) {
    await this.refusals.flush();
    return toUsageResponse(range, await this.usage.byTenantDay(range));
  }

  /** A tenant admin's own usage; `tenant_id` is ignored, the tenant is the caller's. */
  @Get('usage')
  @ApiOperation({
    summary: "The tenant's usage by day",
    description:
      "The caller's tenant's questions, model calls, tokens, cost by payer and refusals by kind per UTC day, `from` inclusive to `to` exclusive (default: the last 30 days); `tenant_id` is ignored.",
  })
  @Roles('admin')
  @ApiOkResponse({ schema: openApiSchemaOf(usageResponse, 'output') })
  async tenantUsage(@CurrentPrincipal() principal: Principal, @ValidQuery(usageQuery) range: z.output<typeof usageQuery>) {
    const scoped = { ...range, tenantId: tenantIdOf(principal) };
    await this.refusals.flush();
    return toUsageResponse(scoped, await this.usage.byTenantDay(scoped));
  }
}
