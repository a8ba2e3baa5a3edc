import { Controller, HttpCode, Inject, Logger, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { Settings, SETTINGS } from '@loci/config';
import { RequestLogsRepository } from '@loci/db';
import { openApiSchemaOf, problemOf, RequestWithId, ValidBody, named, ApiErrors, LIMIT_ERRORS } from '@loci/http';
import { SpendControl } from '@loci/quota';
import { GbEdge, GbEntity, GbNearbyResult, GbPassage, GbQueryResult, GbQueryService, GbQueryStep } from '@loci/retrieval';
import { limitedClient } from '../limits/limited-client';
import { tenantIdOf } from '../tenant-scope';
import { Metered } from '../limits/request-rate.interceptor';
import { nearbySearchOf } from './gb-geo.request';
import { GbQueryBody, gbQueryBody } from './gb-query.request';

const entityView = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.string().optional(),
  description: z.string().optional(),
});
const edgeView = z.object({
  id: z.number().int(),
  source_id: z.number().int(),
  target_id: z.number().int(),
  source: z.string(),
  target: z.string(),
  relation: z.string(),
  artifact_id: z.number().int().optional(),
  valid_at: z.string().optional(),
  invalid_at: z.string().optional(),
  created_at: z.string(),
  expired_at: z.string().optional(),
  history: z.enum(['ended', 'superseded']).optional().describe('include_history only: the fact was no longer live at the instant'),
});
const passageView = z.object({
  artifact_id: z.number().int().describe('the chunk'),
  parent_id: z.number().int().describe('the text (artifact) it is a chunk of'),
  index: z.number().int(),
  summary: z.string().optional(),
  text: z.string().optional(),
});
const anchorView = z.object({
  name: z.string(),
  entity_id: z.number().int().describe('the gb_entities row of the place (a place of the question is stored as one)'),
  latitude: z.number(),
  longitude: z.number(),
  source: z.enum(['question', 'entity']).describe('a place the question names, or a place entity the question matched'),
});
const nearbyEntityView = entityView.extend({
  latitude: z.number(),
  longitude: z.number(),
  distance_km: z.number().describe('great-circle distance to its anchor, rounded to 0.01 km'),
  anchor: z.string().describe('the name of the nearest anchor'),
});
const nearbyView = z.object({ radius_km: z.number(), anchors: z.array(anchorView), nearby: z.array(nearbyEntityView) });
const gbQueryResponse = z.object({
  session_id: z.string().optional(),
  answer: z.string(),
  evidence: z.object({ entities: z.array(entityView), edges: z.array(edgeView), passages: z.array(passageView) }),
  nearby: nearbyView.optional().describe('the nearby search (geo_nearby / geo_radius_km); omitted when the question has no place'),
});
type GbQueryResponse = z.infer<typeof gbQueryResponse>;

// OpenAPI component names: the types of the generated client (packages/client).
named('GbQueryResponse', gbQueryResponse);

/** gb `query`: a question answered from a user's dataset graph, with the evidence used. */
@ApiTags('gb')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1/gb')
export class GbQueryController {
  private readonly logger = new Logger(GbQueryController.name);

  constructor(
    private readonly gbQuery: GbQueryService,
    private readonly spend: SpendControl,
    private readonly requestLogs: RequestLogsRepository,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  @Post('query')
  @Metered()
  @ApiOperation({
    summary: "Ask a user's memory (gb query)",
    description:
      "Answers a question from one of a user's datasets with the evidence used (entities, facts, passages), per the gb contract; `as_of` for what was true at an instant (by all that is known now), `known_at` for what had been remembered by an instant, `include_history` for ended and superseded facts, `geo_nearby` when geo is on.",
  })
  @ApiErrors({ 502: 'The model call failed or its output was unusable; or the question could not be embedded or searched.', ...LIMIT_ERRORS, 503: 'No model is configured for the answer, or the store or limits cannot be checked; Retry-After.' })
  @HttpCode(200)
  @ApiKeyAllowed({ scope: 'read' })
  @Roles('admin', 'member')
  @ApiOkResponse({ schema: openApiSchemaOf(gbQueryResponse, 'output') })
  async query(
    @CurrentPrincipal() principal: Principal,
    @ValidBody(gbQueryBody) body: GbQueryBody,
    @Req() req: RequestWithId,
  ): Promise<GbQueryResponse> {
    const requestId = req.id ?? 'unknown';
    const geo = nearbySearchOf(body, this.settings.geo);
    const tenantId = tenantIdOf(principal);
    const started = performance.now();
    // A question: a concurrency slot, the open caps and the daily quota first.
    const permit = await this.spend.admit(limitedClient(principal, requestId), { countsQuota: true });
    const steps: GbQueryStep[] = [];
    let result: GbQueryResult | undefined;
    let failure: { status: number; code: string } | undefined;
    try {
      result = await this.gbQuery.query(
        tenantId,
        requestId,
        {
          userId: body.user_id,
          question: body.query,
          dataset: body.dataset,
          reasoning: body.reasoning,
          models: body.models,
          asOf: body.as_of,
          knownAt: body.known_at,
          includeHistory: body.include_history,
          geo,
        },
        steps,
      );
      return toResponse(body.session_id, result);
    } catch (error) {
      failure = problemOf(error, 'gb');
      throw error;
    } finally {
      // The quota counts questions our model answered: not a failed one, nor the fixed answer
      // given when there is nothing in memory.
      if (!result?.model) await permit.refundQuota();
      await permit.release();
      // The trajectory of the request (steps with timing and counts), with its session; a failed
      // request keeps the steps it got through and says how it ended. Written in a `finally`, so
      // a failure to write it is logged, never answered: it would replace the request's own outcome.
      await this.requestLogs.insert({
        tenantId,
        requestId,
        route: '/v1/gb/query',
        principalKind: principal.kind,
        principalId: principal.kind === 'api_key' ? principal.keyId : principal.userId,
        sessionId: body.session_id ?? null,
        status: failure?.status ?? 200,
        latencyMs: Math.round(performance.now() - started),
        steps: {
          user_id: body.user_id,
          dataset: body.dataset,
          ...(body.as_of ? { as_of: body.as_of.toISOString() } : {}),
          ...(body.known_at ? { known_at: body.known_at.toISOString() } : {}),
          ...(body.include_history ? { include_history: true } : {}),
          model: result?.model ?? null,
          steps,
          ...(failure ? { error: failure.code } : {}),
        },
      }).catch((error: unknown) => this.logger.warn({ err: error, requestId }, 'gb query request log not written'));
    }
  }
}

function toResponse(sessionId: string | undefined, result: GbQueryResult): GbQueryResponse {
  return {
    ...(sessionId ? { session_id: sessionId } : {}),
    answer: result.answer,
    evidence: {
      entities: result.evidence.entities.map(entityFields),
      edges: result.evidence.edges.map(edgeFields),
      passages: result.evidence.passages.map(passageFields),
    },
    ...(result.nearby ? { nearby: nearbyFields(result.nearby) } : {}),
  };
}

const nearbyFields = (n: GbNearbyResult) => ({
  radius_km: n.radiusKm,
  anchors: n.anchors.map((a) => ({ name: a.name, entity_id: a.entityId, latitude: a.latitude, longitude: a.longitude, source: a.source })),
  nearby: n.nearby.map((x) => ({
    ...entityFields(x.entity),
    latitude: x.entity.latitude,
    longitude: x.entity.longitude,
    distance_km: Math.round(x.distanceKm * 100) / 100,
    anchor: x.anchor.name,
  })),
});

const entityFields = (e: GbEntity) => ({
  id: e.id,
  name: e.name,
  ...(e.type ? { type: e.type } : {}),
  ...(e.description ? { description: e.description } : {}),
});

/** The contract's evidence edge: temporal fields as stored, null ones omitted. */
const edgeFields = (x: GbEdge) => ({
  id: x.id,
  source_id: x.sourceId,
  target_id: x.targetId,
  source: x.source,
  target: x.target,
  relation: x.relation,
  ...(x.artifactId !== null ? { artifact_id: x.artifactId } : {}),
  ...(x.validAt ? { valid_at: x.validAt.toISOString() } : {}),
  ...(x.invalidAt ? { invalid_at: x.invalidAt.toISOString() } : {}),
  created_at: x.createdAt.toISOString(),
  ...(x.expiredAt ? { expired_at: x.expiredAt.toISOString() } : {}),
  ...(x.history ? { history: x.history } : {}),
});

const passageFields = (p: GbPassage) => ({
  artifact_id: p.chunk.id,
  parent_id: p.chunk.documentId,
  index: p.chunk.index,
  ...(p.summary !== undefined ? { summary: p.summary } : {}),
  ...(p.text !== undefined ? { text: p.text } : {}),
});
