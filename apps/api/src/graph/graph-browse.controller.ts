import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags, ApiOperation } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiKeyAllowed, CurrentPrincipal, Principal, Roles } from '@loci/auth';
import { NotFoundError } from '@loci/common';
import { openApiSchemaOf, ValidQuery } from '@loci/http';
import { tenantIdOf } from '../tenant-scope';
import {
  entityDetailResponse,
  entitySearchQuery,
  entitySearchResponse,
  factHistoryResponse,
  graphIdParam,
  toEntityResponse,
  toFactResponse,
} from './graph-browse.dto';
import { GraphBrowseService } from './graph-browse.service';

/** Browsing the tenant's graph: entities by name, an entity's facts in time order, a fact's history. */
@ApiTags('graph')
@ApiBearerAuth('jwt')
@ApiSecurity('api_key')
@ApiKeyAllowed({ scope: 'read' })
@Roles('admin', 'member')
@Controller('v1')
export class GraphBrowseController {
  constructor(private readonly graph: GraphBrowseService) {}

  @Get('entities')
  @ApiOperation({
    summary: 'Search entities by name',
    description:
      "A page of the tenant graph's entities whose name matches `q` (`limit`, `offset`).",
  })
  @ApiOkResponse({ schema: openApiSchemaOf(entitySearchResponse, 'output') })
  async search(@CurrentPrincipal() principal: Principal, @ValidQuery(entitySearchQuery) query: z.output<typeof entitySearchQuery>) {
    const found = await this.graph.searchEntities(tenantIdOf(principal), query.q, query);
    return { items: found.map(toEntityResponse), limit: query.limit, offset: query.offset };
  }

  @Get('entities/:entityId')
  @ApiOperation({
    summary: 'Get an entity with its facts',
    description:
      'An entity and the facts it takes part in, in time order, live, ended and superseded ones marked.',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(entityDetailResponse, 'output') })
  async entity(@CurrentPrincipal() principal: Principal, @Param('entityId') entityId: string) {
    const { entity, facts } = await this.graph.entityWithFacts(tenantIdOf(principal), parseId(entityId, 'entity'));
    return { entity: toEntityResponse(entity), facts: facts.map(toFactResponse) };
  }

  @Get('facts/:factId/history')
  @ApiOperation({
    summary: "Get a fact's history",
    description:
      'A fact and the facts that superseded it or that it superseded, in time order (bi-temporal: valid and recorded times).',
  })
  @ApiOkResponse({ schema: openApiSchemaOf(factHistoryResponse, 'output') })
  async history(@CurrentPrincipal() principal: Principal, @Param('factId') factId: string) {
    const { fact, history } = await this.graph.factHistory(tenantIdOf(principal), parseId(factId, 'fact'));
    return { fact: toFactResponse(fact), history: history.map(toFactResponse) };
  }
}

function parseId(raw: string, what: 'entity' | 'fact'): number {
  if (!graphIdParam.safeParse(raw).success) throw new NotFoundError(`No such ${what}.`);
  return Number(raw);
}
