import { Injectable } from '@nestjs/common';
import { EntitySummary, FactRecord, GraphBrowseRepository, GraphsRepository } from '@loci/db';
import { NotFoundError } from '@loci/common';
import { slotRelations } from '@loci/ingest';

/** The tenant's default graph (what documents build and /v1/query answers from), browsed. */
@Injectable()
export class GraphBrowseService {
  constructor(
    private readonly graphs: GraphsRepository,
    private readonly browse: GraphBrowseRepository,
  ) {}

  async searchEntities(tenantId: string, text: string, page: { limit: number; offset: number }): Promise<EntitySummary[]> {
    const graph = await this.graphs.defaultGraph(tenantId);
    return this.browse.searchEntities(tenantId, graph.id, text, page);
  }

  async entityWithFacts(tenantId: string, entityId: number): Promise<{ entity: EntitySummary; facts: FactRecord[] }> {
    const graph = await this.graphs.defaultGraph(tenantId);
    const entity = await this.browse.entity(tenantId, graph.id, entityId);
    if (!entity) throw new NotFoundError('No such entity.');
    return { entity, facts: await this.browse.factsOfEntity(tenantId, graph.id, entityId) };
  }

  async factHistory(tenantId: string, factId: number): Promise<{ fact: FactRecord; history: FactRecord[] }> {
    const graph = await this.graphs.defaultGraph(tenantId);
    const fact = await this.browse.fact(tenantId, graph.id, factId);
    if (!fact) throw new NotFoundError('No such fact.');
    return { fact, history: await this.browse.factsOfSlot(tenantId, graph.id, fact.sourceId, slotRelations(fact.relation)) };
  }
}
