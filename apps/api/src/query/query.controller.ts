import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiSecurity, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { FastApiValidationPipe, openApiSchemaOf, RequestWithId } from '@loci/http';
import { QueryBody, queryBody, QueryResponse, queryResponse } from './query.dto';
import { QueryService } from './query.service';

/**
 * The tenant-graph question endpoint (contract: shared/reference/v1-query-contract.md).
 * Spend control (cost caps, quota, concurrency) will sit in front of this route, for JWT
 * principals only: an API-key question spends nothing.
 */
@ApiTags('query')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1')
export class QueryController {
  constructor(private readonly queries: QueryService) {}

  @Post('query')
  @HttpCode(200)
  @ApiKeyAllowed()
  @Roles('admin', 'member')
  @ApiBody({ schema: openApiSchemaOf(queryBody) })
  @ApiOkResponse({ schema: openApiSchemaOf(queryResponse, 'output') })
  @ApiUnprocessableEntityResponse({ description: 'Validation error: {"detail": [{"loc", "msg", "type"}]}' })
  ask(
    @CurrentPrincipal() principal: Principal,
    @Body(new FastApiValidationPipe(queryBody)) body: QueryBody,
    @Req() req: RequestWithId,
  ): Promise<QueryResponse> {
    return this.queries.query(principal, req.id ?? 'unknown', body);
  }
}
