import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { SpendControl } from '@loci/quota';
import { limitedClient } from '../limits/limited-client';
import { setRateLimitHeaders } from '../limits/rate-limit-headers';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiSecurity, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { FastApiValidationPipe, openApiSchemaOf, RequestWithId } from '@loci/http';
import { QueryBody, queryBody, QueryResponse, queryResponse } from './query.dto';
import { NO_LLM_MODEL, QueryService } from './query.service';

/**
 * The tenant-graph question endpoint (contract: shared/reference/v1-query-contract.md).
 * Spend control (concurrency slot, cost caps, daily quota) admits dashboard questions; each
 * model call then reserves its worst case against the caps (ModelGateway → SpendControl).
 */
@ApiTags('query')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1')
export class QueryController {
  constructor(
    private readonly queries: QueryService,
    private readonly spend: SpendControl,
  ) {}

  @Post('query')
  @HttpCode(200)
  @ApiKeyAllowed({ scope: 'read' })
  @Roles('admin', 'member')
  @ApiBody({ schema: openApiSchemaOf(queryBody) })
  @ApiOkResponse({ schema: openApiSchemaOf(queryResponse, 'output') })
  @ApiUnprocessableEntityResponse({ description: 'Validation error: {"detail": [{"loc", "msg", "type"}]}' })
  async ask(
    @CurrentPrincipal() principal: Principal,
    @Body(new FastApiValidationPipe(queryBody)) body: QueryBody,
    @Req() req: RequestWithId,
    @Res({ passthrough: true }) res: Response,
  ): Promise<QueryResponse> {
    const requestId = req.id ?? 'unknown';
    // Only a question that may reach our models is limited: a dashboard session's. An API-key
    // question spends nothing on chat models and is never limited.
    const mayCallModel = principal.kind === 'jwt' && !(body.context_only && body.hl_keywords != null && body.ll_keywords != null);
    if (!mayCallModel) return this.queries.query(principal, requestId, body);
    // The quota counts model-answered questions; a context-only one spends on keywords at most.
    const permit = await this.spend.admit(limitedClient(principal, requestId), { countsQuota: !body.context_only });
    let answered = false;
    try {
      const response = await this.queries.query(principal, requestId, body);
      answered = response.metadata.model !== NO_LLM_MODEL;
      // Nothing to answer from: no model answered, so the question does not count.
      if (!answered) await permit.refundQuota();
      setRateLimitHeaders(res, permit);
      return response;
    } finally {
      if (!answered) await permit.refundQuota(); // failed: not answered either
      await permit.release();
    }
  }
}
