import { z } from 'zod';
import { named } from '@loci/http';
import type { EntitySummary, FactRecord } from '@loci/db';
import { pageQuery } from '../admin/admin.dto';

/** Ids in paths are integers; anything else names nothing (404, like documents). */
export const graphIdParam = z.string().regex(/^\d{1,15}$/);

export const entitySearchQuery = pageQuery.extend({
  /** Words the name's words start with ("acme cor" finds "Acme Corporation"). */
  q: z.string().trim().min(1, 'must not be empty').max(200),
});

export const entityResponse = z.object({
  entity_id: z.string(),
  name: z.string(),
  type: z.string().nullable(),
  description: z.string().nullable(),
  fact_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const entitySearchResponse = z.object({
  items: z.array(entityResponse),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const factStatus = z.enum(['live', 'ended', 'superseded']);

/** A fact's end: the entity's id, name and type (a graph view draws it without fetching it). */
const factEnd = z.object({ entity_id: z.string(), name: z.string(), type: z.string().nullable() });

export const factResponse = z.object({
  fact_id: z.string(),
  /** live: true now as far as Loci knows; ended: stopped being true (invalid_at); superseded: replaced by newer knowledge (expired_at). */
  status: factStatus,
  source: factEnd,
  relation: z.string(),
  target: factEnd,
  description: z.string().nullable(),
  weight: z.number(),
  /** When it became true in the world, and stopped being true. */
  valid_at: z.string().nullable(),
  invalid_at: z.string().nullable(),
  /** When Loci learned it, and when newer knowledge superseded it. */
  created_at: z.string(),
  expired_at: z.string().nullable(),
  documents: z.array(z.object({ document_id: z.string(), name: z.string() })),
});

export const entityDetailResponse = z.object({
  entity: entityResponse,
  /** Every fact from or to the entity, every state, in the order they became true. */
  facts: z.array(factResponse),
});

export const factHistoryResponse = z.object({
  fact: factResponse,
  /** The facts of the same source and slot (e.g. every employer), the fact included, in time order. */
  history: z.array(factResponse),
});

export function toEntityResponse(entity: EntitySummary): z.infer<typeof entityResponse> {
  return {
    entity_id: String(entity.id),
    name: entity.name,
    type: entity.type,
    description: entity.description,
    fact_count: entity.factCount,
    created_at: entity.createdAt.toISOString(),
    updated_at: entity.updatedAt.toISOString(),
  };
}

export function factStatusOf(fact: Pick<FactRecord, 'invalidAt' | 'expiredAt'>): z.infer<typeof factStatus> {
  if (fact.expiredAt) return 'superseded';
  if (fact.invalidAt) return 'ended';
  return 'live';
}

export function toFactResponse(fact: FactRecord): z.infer<typeof factResponse> {
  return {
    fact_id: String(fact.id),
    status: factStatusOf(fact),
    source: { entity_id: String(fact.sourceId), name: fact.sourceName, type: fact.sourceType },
    relation: fact.relation,
    target: { entity_id: String(fact.targetId), name: fact.targetName, type: fact.targetType },
    description: fact.description,
    weight: fact.weight,
    valid_at: fact.validAt?.toISOString() ?? null,
    invalid_at: fact.invalidAt?.toISOString() ?? null,
    created_at: fact.createdAt.toISOString(),
    expired_at: fact.expiredAt?.toISOString() ?? null,
    documents: fact.documents.map((d) => ({ document_id: String(d.id), name: d.name })),
  };
}

// OpenAPI component names: the types of the generated client (packages/client).
named('EntityList', entitySearchResponse);
named('EntityDetail', entityDetailResponse);
named('FactHistory', factHistoryResponse);
