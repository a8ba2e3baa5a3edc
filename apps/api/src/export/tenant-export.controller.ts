import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { ValidQuery } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import { exportQuery, EXPORT_DESCRIPTION, EXPORT_LINES } from './export.dto';
import { sendJsonLines } from './ndjson-response';
import { TenantExportService } from './tenant-export.service';

/** Data portability: a tenant admin takes the tenant's data out. */
@ApiTags('export')
@ApiBearerAuth('jwt')
@Roles('admin')
@Controller('v1/export')
export class TenantExportController {
  constructor(private readonly exporter: TenantExportService) {}

  @Get()
  @ApiOperation({
    summary: "Export the tenant's data",
    description:
      "The caller's tenant's data as JSON lines: its graphs, documents, chunks, entities, facts and their provenance, model calls and questions; vectors with `vectors=true`.",
  })
  @ApiProduces('application/x-ndjson')
  @ApiOkResponse({ description: EXPORT_DESCRIPTION, schema: EXPORT_LINES })
  async export(
    @CurrentPrincipal() principal: Principal,
    @ValidQuery(exportQuery) query: z.output<typeof exportQuery>,
    @Res() res: Response,
  ): Promise<void> {
    const tenantId = tenantIdOf(principal);
    const lines = await this.exporter.open(tenantId, { vectors: query.vectors });
    await sendJsonLines(res, lines, `loci-export-${tenantId}.jsonl`);
  }
}
