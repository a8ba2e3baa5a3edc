import { Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { Roles } from '@loci/auth';
import { microsToUsd, usdToMicros } from '@loci/common';
import { PlatformLimitsRepository } from '@loci/db';
import { SpendControl } from '@loci/quota';
import { openApiSchemaOf, ValidBody } from '@loci/http';
import { platformLimitsBody, platformLimitsResponse } from './admin.dto';

/** Platform-wide limits: the daily spend cap on the platform's own key (null = none). */
@ApiTags('admin')
@ApiBearerAuth('jwt')
@Roles('operator')
@Controller('v1/admin/platform/limits')
export class PlatformAdminController {
  constructor(
    private readonly limits: PlatformLimitsRepository,
    private readonly spend: SpendControl,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Get the platform limits',
    description:
      "The platform-wide daily spend cap on the platform's own key (null: none).",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(platformLimitsResponse, 'output') })
  async get(): Promise<z.infer<typeof platformLimitsResponse>> {
    const { dailyCostCapMicros } = await this.limits.get();
    return { daily_cost_cap_usd: dailyCostCapMicros === null ? null : microsToUsd(dailyCostCapMicros) };
  }

  @Put()
  @ApiOperation({
    summary: 'Set the platform limits',
    description:
      'Sets the platform-wide daily spend cap (null: none). Once reached, tenants billed on the platform key are refused (`platform_budget_paused`) until the next UTC day.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(platformLimitsResponse, 'output') })
  async set(@ValidBody(platformLimitsBody) body: z.output<typeof platformLimitsBody>) {
    await this.limits.set(body.daily_cost_cap_usd === null ? null : usdToMicros(body.daily_cost_cap_usd));
    // Committed: every instance's next request reads the platform's cap again.
    await this.spend.limitsChanged();
    return this.get();
  }
}
