import { Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { ApiErrors, openApiSchemaOf } from '@loci/http';
import { BulkLoadService } from '@loci/ingest';
import { tenantIdOf } from '../tenant-scope';
import { bulkLoadResponse, toBulkLoadResponse } from './bulk-load.dto';

/**
 * Bulk mode for a first load of a large corpus into the tenant graph (`npm run ingest -- --bulk`
 * drives it): begin, upload, finish; the graph's own indexes are then built in the background.
 * A tenant's own graph only; nothing of another tenant's is read or changed.
 */
@ApiTags('documents')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
// Keys with the read scope see the state; beginning and finishing need the write scope, as uploads do.
@ApiKeyAllowed({ scope: 'read' })
@Roles('admin', 'member')
@Controller('v1/bulk-load')
export class BulkLoadController {
  constructor(private readonly bulkLoads: BulkLoadService) {}

  @Get()
  @ApiOperation({ summary: "The tenant graph's bulk load", description: 'Where the bulk load of the tenant graph is: none, loading, indexing or indexed.' })
  @ApiOkResponse({ schema: openApiSchemaOf(bulkLoadResponse, 'output') })
  async status(@CurrentPrincipal() principal: Principal) {
    return toBulkLoadResponse(await this.bulkLoads.status(tenantIdOf(principal)));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Begin a bulk load',
    description:
      "Documents uploaded from now on are written without upkeep of the HNSW indexes every tenant shares; the graph's questions keep working (its vectors are searched exactly until its own indexes are built). Answered at once; again while loading, the same answer. Needs the PostgreSQL store.",
  })
  @ApiErrors({ 409: "The graph's bulk load has already ended, the server holds its maximum of graphs with their own indexes, or the store is the embedded one." })
  @ApiKeyAllowed({ scope: 'write' })
  @ApiOkResponse({ schema: openApiSchemaOf(bulkLoadResponse, 'output') })
  async begin(@CurrentPrincipal() principal: Principal) {
    return toBulkLoadResponse(await this.bulkLoads.begin(tenantIdOf(principal)));
  }

  @Post('finish')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Finish a bulk load',
    description:
      "Ends the load: the graph's own HNSW indexes are built in the background (state indexing, then indexed); poll GET /v1/bulk-load. Again after that, the same answer.",
  })
  @ApiErrors({ 409: 'The graph has no bulk load.' })
  @ApiKeyAllowed({ scope: 'write' })
  @ApiAcceptedResponse({ schema: openApiSchemaOf(bulkLoadResponse, 'output') })
  async finish(@CurrentPrincipal() principal: Principal) {
    return toBulkLoadResponse(await this.bulkLoads.finish(tenantIdOf(principal)));
  }
}
