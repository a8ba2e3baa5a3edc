import { Injectable } from '@nestjs/common';
import { Db, EdgeRow, GraphWritesRepository } from '@loci/db';
import type { ExtractedEntity, ExtractedRelation } from '@loci/llm';
import { mergeDescriptions, normalizeEntityName, normalizeRelation } from './names';
import { endedBy, supersededBy } from './temporal-rules';

export interface EntityToWrite extends ExtractedEntity {
  /** Vector of the name alone (resolution) and of name + description (retrieval). */
  nameVector: number[];
  textVector: number[];
}

export interface RelationToWrite extends ExtractedRelation {
  vector: number[];
}

export interface ExtractionWrite {
  tenantId: string;
  graphId: number;
  documentId: number;
  chunkId?: number;
  /** valid_at of facts the text gives no date for: the document's date, or when it was loaded. */
  referenceDate: Date;
  entities: EntityToWrite[];
  relations: RelationToWrite[];
  embeddingModel: string;
  /** Cosine similarity of two name vectors from which they name the same entity. */
  resolutionThreshold: number;
}

/** What a write did to the graph (the gb remember response reports it). */
export interface GraphChanges {
  /** `matched`: existing entities the text named, left as they were (provenance added). */
  entities: { created: number[]; updated: number[]; matched: number[] };
  edges: { created: number[]; updated: number[]; superseded: number[]; ended: number[] };
}

export const emptyChanges = (): GraphChanges => ({
  entities: { created: [], updated: [], matched: [] },
  edges: { created: [], updated: [], superseded: [], ended: [] },
});

/**
 * Writes one text's extraction into a graph, inside the caller's transaction: resolves
 * entities (same normalised name, else a close enough name vector), merges repeated facts,
 * applies temporal supersession, and records provenance for every entity and edge it touches.
 * Running it twice for the same text adds nothing new (a retried chunk is idempotent).
 */
@Injectable()
export class GraphWriter {
  constructor(private readonly writes: GraphWritesRepository) {}

  async write(db: Db, input: ExtractionWrite): Promise<GraphChanges> {
    const changes = emptyChanges();
    const entityIds = new Map<string, number>();
    for (const entity of input.entities) {
      const key = normalizeEntityName(entity.name);
      if (!key || entityIds.has(key)) continue;
      entityIds.set(key, await this.resolveEntity(db, input, entity, key, changes));
    }
    const seen = new Set<string>();
    for (const relation of input.relations) {
      const sourceId = entityIds.get(normalizeEntityName(relation.source));
      const targetId = entityIds.get(normalizeEntityName(relation.target));
      const name = normalizeRelation(relation.relation);
      const key = `${sourceId}:${name}:${targetId}`;
      if (sourceId === undefined || targetId === undefined || sourceId === targetId || seen.has(key)) continue;
      seen.add(key);
      await this.writeEdge(db, input, { ...relation, relation: name }, sourceId, targetId, changes);
    }
    return changes;
  }

  private async resolveEntity(
    db: Db,
    input: ExtractionWrite,
    entity: EntityToWrite,
    normalizedName: string,
    changes: GraphChanges,
  ): Promise<number> {
    const { tenantId, graphId } = input;
    await this.writes.lockEntityName(db, tenantId, graphId, normalizedName);
    let existing = await this.writes.entityByNormalizedName(db, tenantId, graphId, normalizedName);
    if (!existing) {
      const nearest = await this.writes.nearestEntityByName(db, tenantId, graphId, entity.nameVector);
      if (nearest && nearest.similarity >= input.resolutionThreshold) {
        existing = await this.writes.entityById(db, tenantId, nearest.id);
      }
    }
    if (existing) {
      const description = mergeDescriptions(existing.description, entity.description);
      const type = existing.type ?? entity.type;
      if (description !== (existing.description ?? '') || type !== existing.type) {
        await this.writes.updateEntity(db, tenantId, existing.id, { description, type });
        pushOnce(changes.entities.updated, existing.id);
      } else {
        pushOnce(changes.entities.matched, existing.id);
      }
      await this.writes.addEntityProvenance(db, tenantId, existing.id, input.documentId, input.chunkId);
      return existing.id;
    }
    const created = await this.writes.insertEntity(db, {
      tenantId,
      graphId,
      name: entity.name.trim(),
      normalizedName,
      type: entity.type || null,
      description: entity.description.trim() || null,
      embedding: entity.textVector,
      nameEmbedding: entity.nameVector,
      embeddingModel: input.embeddingModel,
    });
    changes.entities.created.push(created.id);
    await this.writes.addEntityProvenance(db, tenantId, created.id, input.documentId, input.chunkId);
    return created.id;
  }

  private async writeEdge(
    db: Db,
    input: ExtractionWrite,
    relation: RelationToWrite,
    sourceId: number,
    targetId: number,
    changes: GraphChanges,
  ): Promise<void> {
    const { tenantId } = input;
    const validAt = relation.valid_at ? new Date(relation.valid_at) : input.referenceDate;
    const invalidAt = relation.invalid_at ? new Date(relation.invalid_at) : null;
    const replaces = supersededBy(relation.relation);
    const ends = endedBy(relation.relation);
    const live = await this.writes.liveEdgesFrom(db, tenantId, sourceId, [...new Set([relation.relation, ...replaces, ...ends])]);

    const same = live.find((e) => e.relation === relation.relation && e.targetId === targetId);
    let edgeId: number;
    if (same) {
      edgeId = same.id;
      await this.writes.updateEdge(db, tenantId, same.id, {
        weight: same.weight + 1,
        description: mergeDescriptions(same.description, relation.description),
        validAt: earliest(same.validAt, validAt),
        invalidAt: same.invalidAt ?? invalidAt,
      });
      pushOnce(changes.edges.updated, same.id);
    } else {
      // A live fact of the same slot that began after this one means this one is history: it
      // is stored as ended when that one began, and the live fact stays.
      const newer = live.filter((e) => replaces.includes(e.relation) && e.targetId !== targetId && e.validAt && e.validAt > validAt);
      const endedAt = invalidAt ?? (newer.length > 0 ? earliest(...newer.map((e) => e.validAt)) : null);
      const created = await this.writes.insertEdge(db, {
        tenantId,
        graphId: input.graphId,
        sourceId,
        targetId,
        relation: relation.relation,
        description: relation.description.trim() || null,
        keywords: relation.keywords.join(', ') || null,
        weight: 1,
        embedding: relation.vector,
        embeddingModel: input.embeddingModel,
        validAt,
        invalidAt: endedAt,
        artifactId: input.documentId,
      });
      edgeId = created.id;
      changes.edges.created.push(created.id);
      if (newer.length === 0) await this.supersede(db, tenantId, live, replaces, targetId, validAt, changes);
    }
    await this.endFacts(db, tenantId, live, ends, targetId, validAt, changes);
    await this.writes.addEdgeProvenance(db, tenantId, edgeId, input.documentId, input.chunkId);
    // An edge's endpoints are supported by the same text, so deleting another document that
    // also mentioned them never strands this edge.
    await this.writes.addEntityProvenance(db, tenantId, sourceId, input.documentId, input.chunkId);
    await this.writes.addEntityProvenance(db, tenantId, targetId, input.documentId, input.chunkId);
  }

  /** Closes the live facts this one replaces: true until it began, superseded now. */
  private async supersede(
    db: Db,
    tenantId: string,
    live: EdgeRow[],
    replaces: readonly string[],
    targetId: number,
    validAt: Date,
    changes: GraphChanges,
  ): Promise<void> {
    const now = new Date();
    for (const edge of live) {
      if (!replaces.includes(edge.relation) || edge.targetId === targetId) continue;
      await this.writes.updateEdge(db, tenantId, edge.id, { invalidAt: edge.invalidAt ?? validAt, expiredAt: now });
      changes.edges.superseded.push(edge.id);
    }
  }

  /** "Left Acme": the live employment fact with Acme ended then; it is history, not superseded. */
  private async endFacts(
    db: Db,
    tenantId: string,
    live: EdgeRow[],
    ends: readonly string[],
    targetId: number,
    at: Date,
    changes: GraphChanges,
  ): Promise<void> {
    for (const edge of live) {
      if (!ends.includes(edge.relation) || edge.targetId !== targetId || edge.invalidAt) continue;
      await this.writes.updateEdge(db, tenantId, edge.id, { invalidAt: at });
      changes.edges.ended.push(edge.id);
    }
  }
}

function earliest(...dates: Array<Date | null>): Date | null {
  const present = dates.filter((d): d is Date => d !== null);
  return present.length === 0 ? null : new Date(Math.min(...present.map((d) => d.getTime())));
}

function pushOnce(list: number[], id: number): void {
  if (!list.includes(id)) list.push(id);
}
