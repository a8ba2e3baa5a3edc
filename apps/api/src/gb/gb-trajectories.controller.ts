import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { microsToUsd } from '@loci/common';
import type { InferenceRow } from '@loci/db';
import { openApiSchemaOf, named } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import { GbTrajectoriesService, GbTrajectory } from './gb-trajectories.service';

const stepView = z.object({
  name: z.string().describe('keyword_seeds, search_vectors, expand, passages, then detect_geo and nearby (geo on, nearby search asked for), answer (in this order; no answer step when there was nothing to answer from)'),
  ms: z.number().describe('wall time of the step, milliseconds'),
  counts: z.record(z.string(), z.union([z.number(), z.string()])).describe('what the step found, e.g. {"terms": 3, "seeds": 1}'),
});
const inferenceView = z.object({
  call_index: z.number().int(),
  kind: z.string().describe('what the call served: query'),
  stage: z.string().describe('embed (the question), query (the answer), detect_geo'),
  provider: z.string(),
  model: z.string(),
  reasoning: z.string().optional().describe('the reasoning level the call ran with; omitted for calls without one (embeddings)'),
  billed_to: z.enum(['platform', 'own_key']),
  status: z.enum(['pending', 'ok', 'error']).describe('pending: the call never reported back (its process died)'),
  error: z.string().optional(),
  tokens_in: z.number().int(),
  tokens_out: z.number().int().describe('thinking tokens included'),
  tokens_thinking: z.number().int(),
  cost_usd: z.number().describe('what the call cost; a pending call counts at its estimated worst case'),
  latency_ms: z.number().int().optional(),
  created_at: z.string(),
});
const trajectoryResponse = z.object({
  request_id: z.string(),
  status: z.number().int().optional().describe('the HTTP status the request was answered with'),
  error: z.string().optional().describe('the error code of a request that failed (model_call_failed, not_found, ...)'),
  created_at: z.string(),
  latency_ms: z.number().int().optional(),
  caller: z.object({ kind: z.string().describe('jwt or api_key'), id: z.string().optional().describe('the user or the API key') }),
  user_id: z.string(),
  dataset: z.string(),
  session_id: z.string().optional(),
  model: z.string().optional().describe('the model that wrote the answer (provider:model); omitted when none was called'),
  steps: z.array(stepView),
  inferences: z.array(inferenceView),
  totals: z.object({
    model_calls: z.number().int(),
    tokens_in: z.number().int(),
    tokens_out: z.number().int(),
    tokens_thinking: z.number().int(),
    cost_usd: z.number(),
  }),
});
type TrajectoryResponse = z.infer<typeof trajectoryResponse>;

// OpenAPI component names: the types of the generated client (packages/client).
named('GbTrajectory', trajectoryResponse);

/** The trajectory of a gb query: its retrieval steps with timings and counts, and its model calls. */
@ApiTags('gb')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1/gb/trajectories')
export class GbTrajectoriesController {
  constructor(private readonly trajectories: GbTrajectoriesService) {}

  @Get(':request_id')
  @ApiOperation({
    summary: 'Get a gb query trajectory',
    description:
      "The steps of one gb query (timings and counts), its model calls with tokens and cost, and how it ended, by the query's request id (the X-Request-Id of its response).",
  })
  @ApiKeyAllowed({ scope: 'read' })
  @Roles('admin', 'member')
  @ApiOkResponse({ schema: openApiSchemaOf(trajectoryResponse, 'output') })
  @ApiNotFoundResponse({ description: 'No gb query with this request id in the caller\'s tenant: `{"error": "..."}`.' })
  async get(@CurrentPrincipal() principal: Principal, @Param('request_id') requestId: string): Promise<TrajectoryResponse> {
    return toTrajectoryResponse(await this.trajectories.trajectory(tenantIdOf(principal), requestId));
  }
}

/** A pending call's spend is its reservation's worst case, as usage counts it. */
const costMicrosOf = (call: InferenceRow) => (call.status === 'pending' ? call.estimatedCostMicros : call.costMicros);

function toTrajectoryResponse(t: GbTrajectory): TrajectoryResponse {
  const sum = (pick: (call: InferenceRow) => number) => t.calls.reduce((total, call) => total + pick(call), 0);
  return {
    request_id: t.requestId,
    ...(t.status !== null ? { status: t.status } : {}),
    ...(t.error ? { error: t.error } : {}),
    created_at: t.createdAt.toISOString(),
    ...(t.latencyMs !== null ? { latency_ms: t.latencyMs } : {}),
    caller: { kind: t.caller.kind, ...(t.caller.id ? { id: t.caller.id } : {}) },
    user_id: t.userId,
    dataset: t.dataset,
    ...(t.sessionId ? { session_id: t.sessionId } : {}),
    ...(t.model ? { model: t.model } : {}),
    steps: t.steps.map((s) => ({ name: s.name, ms: s.ms, counts: s.counts })),
    inferences: t.calls.map(inferenceFields),
    totals: {
      model_calls: t.calls.length,
      tokens_in: sum((c) => c.tokensIn),
      tokens_out: sum((c) => c.tokensOut),
      tokens_thinking: sum((c) => c.tokensThinking),
      // Summed in integer micro-dollars, converted once.
      cost_usd: microsToUsd(sum(costMicrosOf)),
    },
  };
}

const inferenceFields = (call: InferenceRow): z.infer<typeof inferenceView> => ({
  call_index: call.callIndex,
  kind: call.kind,
  stage: call.stage,
  provider: call.provider,
  model: call.model,
  ...(call.reasoning ? { reasoning: call.reasoning } : {}),
  billed_to: call.billedTo,
  status: call.status,
  ...(call.error ? { error: call.error } : {}),
  tokens_in: call.tokensIn,
  tokens_out: call.tokensOut,
  tokens_thinking: call.tokensThinking,
  cost_usd: microsToUsd(costMicrosOf(call)),
  ...(call.latencyMs !== null ? { latency_ms: call.latencyMs } : {}),
  created_at: call.createdAt.toISOString(),
});
