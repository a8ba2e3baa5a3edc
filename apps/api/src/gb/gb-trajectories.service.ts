import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import { NotFoundError } from '@loci/common';
import { InferenceRow, InferencesRepository, isUuid, RequestLogsRepository } from '@loci/db';

/** The route whose requests have a gb trajectory. */
export const GB_QUERY_ROUTE = '/v1/gb/query';

/** What GbQueryController writes into `request_logs.steps` (a jsonb column, hence read leniently). */
const recordedQuery = z.object({
  user_id: z.string().catch(''),
  dataset: z.string().catch(''),
  model: z.string().nullish().catch(null),
  error: z.string().optional().catch(undefined),
  steps: z
    .array(
      z.object({
        name: z.string(),
        ms: z.number(),
        counts: z.record(z.string(), z.union([z.number(), z.string()])).catch({}),
      }),
    )
    .catch([]),
});

export type RecordedStep = z.infer<typeof recordedQuery>['steps'][number];

export interface GbTrajectory {
  requestId: string;
  status: number | null;
  /** The error code of a failed request. */
  error?: string;
  createdAt: Date;
  latencyMs: number | null;
  caller: { kind: string; id: string | null };
  sessionId: string | null;
  userId: string;
  dataset: string;
  /** The model that wrote the answer; null when none was asked (nothing to answer from). */
  model: string | null;
  steps: RecordedStep[];
  /** The request's model calls from the inference ledger, in call order. */
  calls: InferenceRow[];
}

/** The trajectory of one gb query: its request log and its model calls, within one tenant. */
@Injectable()
export class GbTrajectoriesService {
  constructor(
    private readonly requestLogs: RequestLogsRepository,
    private readonly inferences: InferencesRepository,
  ) {}

  async trajectory(tenantId: string, requestId: string): Promise<GbTrajectory> {
    // Request ids are Loci's own UUIDs: anything else names no request (and is not sent to the store).
    if (!isUuid(requestId)) throw new NotFoundError(`no gb query request "${requestId}"`);
    const [log, calls] = await Promise.all([
      this.requestLogs.byRequestId(tenantId, requestId),
      this.inferences.listByRequest(tenantId, requestId),
    ]);
    // Another tenant's request, or one of another route, is as unknown as a made-up id.
    if (!log || log.route !== GB_QUERY_ROUTE) throw new NotFoundError(`no gb query request "${requestId}"`);
    const parsed = recordedQuery.safeParse(log.steps);
    const recorded = parsed.success ? parsed.data : { user_id: '', dataset: '', model: null, steps: [], error: undefined };
    return {
      requestId: log.requestId,
      status: log.status,
      error: recorded.error,
      createdAt: log.createdAt,
      latencyMs: log.latencyMs,
      caller: { kind: log.principalKind, id: log.principalId },
      sessionId: log.sessionId,
      userId: recorded.user_id,
      dataset: recorded.dataset,
      model: recorded.model ?? null,
      steps: recorded.steps,
      calls,
    };
  }
}
