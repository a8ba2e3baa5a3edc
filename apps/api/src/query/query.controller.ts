import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { SpendControl } from '@loci/quota';
import { limitedClient } from '../limits/limited-client';
import { Metered } from '../limits/request-rate.interceptor';
import { setRateLimitHeaders } from '../limits/rate-limit-headers';
import { RefusalCounter } from '../limits/refusal-counter';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiProduces, ApiSecurity, ApiTags, ApiUnprocessableEntityResponse, ApiOperation } from '@nestjs/swagger';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { FastApiValidationPipe, openApiSchemaOf, refTo, RequestWithId, ApiErrors, LIMIT_ERRORS } from '@loci/http';
import { QueryBody, queryBody, QueryResponse, queryResponse } from './query.dto';
import { QueryEventStream } from './query-event-stream';
import { requestedAnswerLanguage } from './no-answer';
import { NO_LLM_MODEL, QueryService } from './query.service';

/** The streamed answer as the document describes it (OpenAPI 3.0 has no schema for events: their data is named here). */
const QUERY_EVENT_STREAM = refTo('QueryEventStream', {
  type: 'string',
  description:
    'Server-Sent Events, each `event: <name>` and `data: <JSON>`; merged, their data is the QueryResponse. ' +
    '`sources` ({"sources": [SourceItem]}) once, first; `answer` ({"text": "..."}) pieces of the answer as it is written, ' +
    'none when it is empty; `context` ({"context": {...}}) in context mode; then `metadata` ({"metadata": {...}, "cited": ["1", ...]}), ' +
    'the last event of a complete answer, or `error` ({"status": 502, "detail": ...}) in its place, with the status and the /v1/query ' +
    'body it would have had. A refusal before the first event is an ordinary status and JSON body.',
  example:
    'event: sources\ndata: {"sources":[{"document_id":"…","reference_id":"1"}]}\n\n' +
    'event: answer\ndata: {"text":"Alice works at Globex"}\n\n' +
    'event: metadata\ndata: {"metadata":{"mode":"mix","model":"…","tokens_in":812,"tokens_out":9,"latency_ms":640},"cited":["1"]}\n\n',
});

/** The answer's schema per media type, split by the document builder (apps/api/src/openapi.ts). */
const ANSWER_BODY: Record<string, any> = {
  'x-loci-by-media-type': { 'application/json': openApiSchemaOf(queryResponse, 'output'), 'text/event-stream': QUERY_EVENT_STREAM },
};

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
    private readonly refusals: RefusalCounter,
  ) {}

  @Post('query')
  @Metered()
  @ApiOperation({
    summary: 'Ask the tenant graph (/v1/query)',
    description:
      'Retrieves from the tenant graph in a mode (naive, local, global, hybrid, mix) and, for a dashboard session, answers with the platform model and the cited sources; an API-key question, or `context_only`, gets the retrieved material instead. `stream: true` answers as Server-Sent Events.',
  })
  @ApiErrors({ 502: 'The model call failed or its output was unusable.', ...LIMIT_ERRORS })
  @HttpCode(200)
  @ApiKeyAllowed({ scope: 'read' })
  @Roles('admin', 'member')
  @ApiBody({ schema: openApiSchemaOf(queryBody) })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiOkResponse({
    schema: ANSWER_BODY,
    description: 'The answer as JSON; with `"stream": true`, as Server-Sent Events (text/event-stream).',
  })
  @ApiUnprocessableEntityResponse({ description: 'Validation error: {"detail": [{"loc", "msg", "type"}]}' })
  async ask(
    @CurrentPrincipal() principal: Principal,
    @Body(new FastApiValidationPipe(queryBody)) body: QueryBody,
    @Req() req: RequestWithId,
    @Res() res: Response,
  ): Promise<void> {
    const requestId = req.id ?? 'unknown';
    const events = body.stream ? new QueryEventStream(res, requestId, { counter: this.refusals, tenantId: principal.tenantId }) : undefined;
    // Only a question that may reach our models is limited: a dashboard session's. An API-key
    // question spends nothing on chat models and is never limited.
    const mayCallModel = principal.kind === 'jwt' && !(body.context_only && body.hl_keywords != null && body.ll_keywords != null);
    const language = requestedAnswerLanguage(req);
    if (!mayCallModel) return this.respond(res, events, () => this.queries.query(principal, requestId, body, events, language));
    // The quota counts model-answered questions; a context-only one spends on keywords at most.
    const permit = await this.spend.admit(limitedClient(principal, requestId), { countsQuota: !body.context_only });
    let answered = false;
    try {
      // Streamed, the headers leave with the first event, before the quota's use is final.
      if (events) setRateLimitHeaders(res, permit);
      await this.respond(res, events, async () => {
        const response = await this.queries.query(principal, requestId, body, events, language);
        answered = response.metadata.model !== NO_LLM_MODEL;
        // Nothing to answer from: no model answered, so the question does not count.
        if (!answered) await permit.refundQuota();
        if (!events) setRateLimitHeaders(res, permit);
        return response;
      });
    } finally {
      if (!answered) await permit.refundQuota(); // failed: not answered either
      // A streamed question holds its slot until its last event, or until its client left.
      await permit.release();
    }
  }

  /** The response as JSON, or as the rest of its event stream; a failure once events began is an `error` event. */
  private async respond(res: Response, events: QueryEventStream | undefined, answer: () => Promise<QueryResponse>): Promise<void> {
    if (!events) {
      res.status(200).json(await answer());
      return;
    }
    try {
      events.finish(await answer());
    } catch (error) {
      if (!events.started) throw error; // still an ordinary status and body
      await events.fail(error);
    }
  }
}
