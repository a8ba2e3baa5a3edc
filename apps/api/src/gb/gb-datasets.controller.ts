import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { NotFoundError } from '@loci/common';
import { GbDatasetSummary, GraphsRepository } from '@loci/db';
import { openApiSchemaOf, ValidQuery, named } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import { datasetField, userIdField } from './gb-request';

/** `?user_id=`: whose datasets. Other query parameters are ignored, as gb clients expect. */
const userQuery = z.object({ user_id: userIdField });
type UserQuery = z.output<typeof userQuery>;

const contentsView = {
  texts: z.number().int().describe('texts remembered (artifacts)'),
  chunks: z.number().int().describe('chunks of the long texts (passages)'),
  entities: z.number().int(),
  edges: z.number().int().describe('facts stored, superseded ones included'),
};
const datasetView = z.object({
  name: z.string(),
  created_at: z.string(),
  last_remembered_at: z.string().optional().describe('when its newest text was remembered'),
  ...contentsView,
  live_edges: z.number().int().describe('facts not superseded: what query retrieves'),
});
const datasetListResponse = z.object({ datasets: z.array(datasetView) });
const datasetDeletedResponse = z.object({
  user_id: z.string(),
  dataset: z.string(),
  deleted: z.object(contentsView).describe('what the dataset held, now gone'),
});

// OpenAPI component names: the types of the generated client (packages/client).
named('GbDatasetList', datasetListResponse);
named('GbDatasetDeleted', datasetDeletedResponse);

/** A gb user's datasets (one graph each): listed with what they hold, and deleted whole. */
@ApiTags('gb')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@ApiKeyAllowed({ scope: 'read' })
@Roles('admin', 'member')
@Controller('v1/gb/datasets')
export class GbDatasetsController {
  constructor(private readonly graphs: GraphsRepository) {}

  @Get()
  @ApiOperation({
    summary: "List a user's datasets",
    description:
      'The datasets of `user_id` by name, with what each holds (texts, chunks, entities, facts).',
  })
  @ApiOkResponse({
    description: 'The user\'s datasets by name; `{"datasets": []}` for a user with none.',
    schema: openApiSchemaOf(datasetListResponse, 'output'),
  })
  async list(@CurrentPrincipal() principal: Principal, @ValidQuery(userQuery) query: UserQuery): Promise<z.infer<typeof datasetListResponse>> {
    const datasets = await this.graphs.listGbDatasets(tenantIdOf(principal), query.user_id);
    return { datasets: datasets.map(datasetFields) };
  }

  @Delete(':name')
  @ApiOperation({
    summary: 'Delete a dataset',
    description:
      "Deletes one of `user_id`'s datasets with its texts, chunks, entities, facts, vectors and provenance, in one transaction.",
  })
  @ApiKeyAllowed({ scope: 'write' })
  @HttpCode(200)
  @ApiOkResponse({
    description: 'Deleted in one transaction with its texts, chunks, entities, edges, their vectors and provenance.',
    schema: openApiSchemaOf(datasetDeletedResponse, 'output'),
  })
  @ApiNotFoundResponse({ description: 'The user has no dataset of this name in the caller\'s tenant: `{"error": "..."}`.' })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('name') name: string,
    @ValidQuery(userQuery) query: UserQuery,
  ): Promise<z.infer<typeof datasetDeletedResponse>> {
    const notFound = () => new NotFoundError(`dataset "${name}" does not exist for user_id "${query.user_id}"`);
    // A name no dataset can have (see remember's `dataset`) names none.
    if (!datasetField.safeParse(name).success) throw notFound();
    const deleted = await this.graphs.deleteGbGraph(tenantIdOf(principal), query.user_id, name);
    if (!deleted) throw notFound();
    return { user_id: query.user_id, dataset: name, deleted };
  }
}

const datasetFields = (d: GbDatasetSummary): z.infer<typeof datasetView> => ({
  name: d.name,
  created_at: d.createdAt.toISOString(),
  ...(d.lastRememberedAt ? { last_remembered_at: d.lastRememberedAt.toISOString() } : {}),
  texts: d.texts,
  chunks: d.chunks,
  entities: d.entities,
  edges: d.edges,
  live_edges: d.liveEdges,
});
