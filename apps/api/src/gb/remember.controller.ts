import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ClientClosedRequestError } from '@loci/common';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import type { EdgeFacts, EntityFacts } from '@loci/db';
import { openApiSchemaOf, RequestWithId, ValidBody, named, ApiErrors, LIMIT_ERRORS } from '@loci/http';
import { RememberResult, RememberService } from '@loci/ingest';
import { SpendControl } from '@loci/quota';
import { limitedClient } from '../limits/limited-client';
import { tenantIdOf } from '../tenant-scope';
import { Metered } from '../limits/request-rate.interceptor';
import { RememberBody, rememberBody } from './gb-request';
import { abortedWhenClientLeaves } from '../client-gone';

const entityView = z.object({
  id: z.number().int(),
  name: z.string(),
  type: z.string().optional(),
  description: z.string().optional(),
  latitude: z.number().optional().describe('A place the offline gazetteer resolved (server with geo on): its coordinates, with longitude'),
  longitude: z.number().optional(),
  change: z.enum(['created', 'updated', 'matched']).describe('matched: an existing entity the text named, unchanged'),
});
const edgeView = z.object({
  id: z.number().int(),
  source_id: z.number().int(),
  target_id: z.number().int(),
  relation: z.string(),
  description: z.string().optional(),
  artifact_id: z.number().int().optional(),
  valid_at: z.string().optional(),
  invalid_at: z.string().optional(),
  created_at: z.string(),
  expired_at: z.string().optional(),
  change: z.enum(['created', 'updated', 'superseded', 'ended']),
});
const rememberResponse = z.object({
  artifact_id: z.number().int(),
  dataset: z.string(),
  session_id: z.string().optional(),
  duplicate: z.boolean().describe('The same text was already remembered in this dataset; nothing was written.'),
  entities: z.array(entityView),
  edges: z.array(edgeView),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('RememberResponse', rememberResponse);

/** gb `remember`: a user's text into their dataset graph, synchronously. */
@ApiTags('gb')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@Controller('v1/gb')
export class RememberController {
  constructor(
    private readonly remember: RememberService,
    private readonly spend: SpendControl,
  ) {}

  @Post('remember')
  @Metered()
  @ApiOperation({
    summary: 'Remember a text (gb remember)',
    description:
      "Turns a user's text into entities and facts in their dataset graph, synchronously; facts it contradicts are superseded or ended. The response lists what was created, updated, matched, superseded or ended.",
  })
  @ApiErrors({
    409: 'The same text is still being remembered in this dataset by an earlier request (a retry waited for it, LOCI_REMEMBER_WAIT_MS); Retry-After says when to try again.',
    502: 'A model call of extraction failed or its output was unusable.',
    ...LIMIT_ERRORS,
    429: `${LIMIT_ERRORS[429]} Or the tenant's documents of the day are used up (\`daily_document_quota_exceeded\`, a remember counts as a document; a duplicate does not) or its text of the day (\`daily_ingest_quota_exceeded\`), until the next UTC midnight.`,
    413: "The tenant's stored text would pass its quota (`storage_quota_exceeded`, `limit_mb`), or the text alone is larger than a day's `daily_ingest_mb`; no Retry-After.",
  })
  @HttpCode(200)
  @ApiKeyAllowed({ scope: 'write' })
  @Roles('admin', 'member')
  @ApiOkResponse({ schema: openApiSchemaOf(rememberResponse, 'output') })
  async rememberText(
    @CurrentPrincipal() principal: Principal,
    @ValidBody(rememberBody) body: RememberBody,
    @Req() req: RequestWithId,
  ): Promise<z.infer<typeof rememberResponse>> {
    const requestId = req.id ?? 'unknown';
    // Every gb call may spend on our models: a concurrency slot and open caps first (not a
    // question, so no quota).
    const permit = await this.spend.admit(limitedClient(principal, requestId), { countsQuota: false });
    try {
      return toRememberResponse(await this.rememberIt(principal, requestId, body, clientGone(req)));
    } finally {
      await permit.release();
    }
  }

  private rememberIt(principal: Principal, requestId: string, body: RememberBody, signal?: AbortSignal) {
    return this.remember.remember(
      tenantIdOf(principal),
      requestId,
      {
        userId: body.user_id,
        text: body.text,
        dataset: body.dataset,
        sessionId: body.session_id,
        validAt: body.valid_at,
        reasoning: body.reasoning,
        models: body.models,
      },
      signal,
    );
  }
}

/**
 * Aborted when the client closes the connection before its answer is written: a retry waiting
 * for an earlier request's ingestion stops waiting (an ingestion under way finishes regardless;
 * the next retry finds it done). None for an MCP tool call, which has no response of its own.
 */
function clientGone(req: RequestWithId): AbortSignal | undefined {
  const res = req.res;
  if (typeof res?.on !== 'function') return undefined;
  return abortedWhenClientLeaves(res, () => new ClientClosedRequestError());
}

function toRememberResponse(result: RememberResult): z.infer<typeof rememberResponse> {
  return {
    artifact_id: result.artifactId,
    dataset: result.dataset,
    ...(result.sessionId ? { session_id: result.sessionId } : {}),
    duplicate: result.duplicate,
    entities: result.entities.map(({ row, change }) => ({ ...entityFields(row), change })),
    edges: result.edges.map(({ row, change }) => ({ ...edgeFields(row), change })),
  };
}

const entityFields = (row: EntityFacts) => ({
  id: row.id,
  name: row.name,
  ...(row.type ? { type: row.type } : {}),
  ...(row.description ? { description: row.description } : {}),
  // The README's "remember gives the places it can resolve coordinates", shown to the caller.
  ...(row.latitude !== null && row.longitude !== null ? { latitude: row.latitude, longitude: row.longitude } : {}),
});

/** The gb contract's edge fields: ids, relation, artifact, and the four temporal fields (null ones omitted). */
export const edgeFields = (row: EdgeFacts) => ({
  id: row.id,
  source_id: row.sourceId,
  target_id: row.targetId,
  relation: row.relation,
  ...(row.description ? { description: row.description } : {}),
  ...(row.artifactId !== null ? { artifact_id: row.artifactId } : {}),
  ...(row.validAt ? { valid_at: row.validAt.toISOString() } : {}),
  ...(row.invalidAt ? { invalid_at: row.invalidAt.toISOString() } : {}),
  created_at: row.createdAt.toISOString(),
  ...(row.expiredAt ? { expired_at: row.expiredAt.toISOString() } : {}),
});
