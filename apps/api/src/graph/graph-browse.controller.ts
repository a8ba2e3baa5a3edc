import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
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
  @ApiOkResponse({ schema: openApiSchemaOf(entitySearchResponse, 'output') })
  async search(@CurrentPrincipal() principal: Principal, @ValidQuery(entitySearchQuery) query: z.output<typeof entitySearchQuery>) {
    const found = await this.graph.searchEntities(tenantIdOf(principal), query.q, query);
    return { items: found.map(toEntityResponse), limit: query.limit, offset: query.offset };
  }

  @Get('entities/:entityId')
  @ApiOkResponse({ schema: openApiSchemaOf(entityDetailResponse, 'output') })
  async entity(@CurrentPrincipal() principal: Principal, @Param('entityId') entityId: string) {
    const { entity, facts } = await this.graph.entityWithFacts(tenantIdOf(principal), parseId(entityId, 'entity'));
    return { entity: toEntityResponse(entity), facts: facts.map(toFactResponse) };
  }

  @Get('facts/:factId/history')
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
