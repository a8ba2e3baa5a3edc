import { Inject, Injectable, Optional } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { ReadRouter } from '../replicas/read-router';

/** An entity as a browser lists it: no vectors, with how many facts touch it. */
export interface EntitySummary {
  id: number;
  name: string;
  type: string | null;
  description: string | null;
  factCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A fact with its ends named, its four times, and the documents that support it. */
export interface FactRecord {
  id: number;
  sourceId: number;
  sourceName: string;
  /** The ends' types, so a graph view can draw each node by its type without a call per node. */
  sourceType: string | null;
  targetId: number;
  targetName: string;
  targetType: string | null;
  relation: string;
  description: string | null;
  weight: number;
  validAt: Date | null;
  invalidAt: Date | null;
  createdAt: Date;
  expiredAt: Date | null;
  documents: { id: number; name: string }[];
}

/** A passage of a document as a reader sees it: its place, text and summary, no vectors. */
export interface ChunkRecord {
  id: number;
  index: number;
  text: string;
  tokenCount: number;
  summary: string | null;
}

/** Where entities and facts were taken from: a document, or one of its passages. */
export interface TakenFrom {
  documentId: number;
  /** Only what this passage (a chunk of the document) gave. */
  chunkId?: number;
}

interface FactRow {
  id: number;
  source_id: number;
  source_name: string;
  source_type: string | null;
  target_id: number;
  target_name: string;
  target_type: string | null;
  relation: string;
  description: string | null;
  weight: number;
  valid_at: Date | string | null;
  invalid_at: Date | string | null;
  created_at: Date | string;
  expired_at: Date | string | null;
  documents: { id: number; name: string }[] | string | null;
}

/**
 * The words of a search, each as a prefix term of a `simple` tsquery ("acme cor" → acme:* & cor:*):
 * full-text over the words of the name, and a prefix of each, without stemming (names are not
 * English prose). Anything but letters and digits separates words, so no input is tsquery syntax.
 */
export function namePrefixQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0) return null;
  return words.slice(0, 16).map((w) => `${w}:*`).join(' & ');
}

/**
 * Reads for the graph browser and a document's page (console and API clients), always inside one
 * tenant and one of its graphs. Facts come with every state: live, ended (invalid_at set) and
 * superseded (expired_at set).
 */
@Injectable()
export class GraphBrowseRepository {
  /** On a streaming replica when DATABASE_READ_URL names one (ReadRouter); without a router, the primary. */
  private readonly reads: ReadRouter;

  constructor(@Inject(DATABASE) database: Database, @Optional() reads?: ReadRouter) {
    this.reads = reads ?? new ReadRouter(database);
  }

  /** Entities whose name's words start with the search's words; names starting with the whole search first. */
  async searchEntities(tenantId: string, graphId: number, text: string, page: { limit: number; offset: number }): Promise<EntitySummary[]> {
    const tsquery = namePrefixQuery(text);
    if (!tsquery) return [];
    const prefix = `${text.trim().toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = await this.reads.rows<Record<string, unknown>>(
      sql`SELECT e.id, e.name, e.type, e.description, e.created_at, e.updated_at,
            (SELECT count(*)::int FROM edges x WHERE x.tenant_id = e.tenant_id AND (x.source_id = e.id OR x.target_id = e.id)) AS fact_count
          FROM entities e
          WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId}
            AND to_tsvector('simple', e.name) @@ to_tsquery('simple', ${tsquery})
          ORDER BY (lower(e.name) LIKE ${prefix}) DESC, length(e.name), e.name, e.id
          LIMIT ${page.limit} OFFSET ${page.offset}`,
      { tenantId, graphId },
    );
    return rows.map(toEntitySummary);
  }

  async entity(tenantId: string, graphId: number, entityId: number): Promise<EntitySummary | undefined> {
    const [row] = await this.reads.rows<Record<string, unknown>>(
      sql`SELECT e.id, e.name, e.type, e.description, e.created_at, e.updated_at,
            (SELECT count(*)::int FROM edges x WHERE x.tenant_id = e.tenant_id AND (x.source_id = e.id OR x.target_id = e.id)) AS fact_count
          FROM entities e WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId} AND e.id = ${entityId}`,
      { tenantId, graphId },
    );
    return row ? toEntitySummary(row) : undefined;
  }

  /** Every fact from or to the entity, in the order they became true (then learned). */
  async factsOfEntity(tenantId: string, graphId: number, entityId: number): Promise<FactRecord[]> {
    return this.facts(tenantId, graphId, sql`(x.source_id = ${entityId} OR x.target_id = ${entityId})`);
  }

  async fact(tenantId: string, graphId: number, factId: number): Promise<FactRecord | undefined> {
    const [row] = await this.facts(tenantId, graphId, sql`x.id = ${factId}`);
    return row;
  }

  /** Facts of one source with any of `relations` (the fact's slot), every target and state. */
  async factsOfSlot(tenantId: string, graphId: number, sourceId: number, relations: readonly string[]): Promise<FactRecord[]> {
    if (relations.length === 0) return [];
    return this.facts(tenantId, graphId, sql`x.source_id = ${sourceId} AND x.relation IN ${[...relations]}`);
  }

  /** A document's passages in their order, a page at a time. */
  async chunksOfDocument(tenantId: string, graphId: number, documentId: number, page: { limit: number; offset: number }): Promise<ChunkRecord[]> {
    const rows = await this.reads.rows<Record<string, unknown>>(
      sql`SELECT c.id, c.index, c.text, c.token_count, c.summary
          FROM chunks c
          WHERE c.tenant_id = ${tenantId} AND c.document_id = ${documentId} AND c.graph_id = ${graphId}
          ORDER BY c.index
          LIMIT ${page.limit} OFFSET ${page.offset}`,
      { tenantId, graphId },
    );
    return rows.map((row) => ({
      id: Number(row.id),
      index: Number(row.index),
      text: String(row.text),
      tokenCount: Number(row.token_count),
      summary: (row.summary as string | null) ?? null,
    }));
  }

  /**
   * How many of the document's passages come before the chunk (where a page of them finds it),
   * or undefined when the chunk is not one of the document's.
   */
  async chunkPosition(tenantId: string, graphId: number, documentId: number, chunkId: number): Promise<number | undefined> {
    const [row] = await this.reads.rows<{ position: number }>(
      sql`SELECT (SELECT count(*)::int FROM chunks b
                   WHERE b.tenant_id = c.tenant_id AND b.document_id = c.document_id AND b.index < c.index) AS position
          FROM chunks c
          WHERE c.tenant_id = ${tenantId} AND c.id = ${chunkId} AND c.document_id = ${documentId} AND c.graph_id = ${graphId}`,
      { tenantId, graphId },
    );
    return row ? Number(row.position) : undefined;
  }

  /** The entities taken from a document (or one of its passages), by name, a page at a time. */
  async entitiesTakenFrom(tenantId: string, graphId: number, from: TakenFrom, page: { limit: number; offset: number }): Promise<EntitySummary[]> {
    // Driven from the provenance rows (by document or by chunk, both indexed), not the graph's entities.
    const ids =
      from.chunkId === undefined
        ? sql`SELECT d.entity_id FROM entity_documents d WHERE d.tenant_id = ${tenantId} AND d.document_id = ${from.documentId}`
        : sql`SELECT p.entity_id FROM entity_chunks p JOIN chunks c ON c.tenant_id = p.tenant_id AND c.id = p.chunk_id
              WHERE p.tenant_id = ${tenantId} AND p.chunk_id = ${from.chunkId} AND c.document_id = ${from.documentId}`;
    const rows = await this.reads.rows<Record<string, unknown>>(
      sql`SELECT e.id, e.name, e.type, e.description, e.created_at, e.updated_at,
            (SELECT count(*)::int FROM edges x WHERE x.tenant_id = e.tenant_id AND (x.source_id = e.id OR x.target_id = e.id)) AS fact_count
          FROM entities e
          WHERE e.tenant_id = ${tenantId} AND e.graph_id = ${graphId} AND e.id IN (${ids})
          ORDER BY lower(e.name), e.id
          LIMIT ${page.limit} OFFSET ${page.offset}`,
      { tenantId, graphId },
    );
    return rows.map(toEntitySummary);
  }

  /** The facts taken from a document (or one of its passages), every state, in time order, a page at a time. */
  async factsTakenFrom(tenantId: string, graphId: number, from: TakenFrom, page: { limit: number; offset: number }): Promise<FactRecord[]> {
    const ids =
      from.chunkId === undefined
        ? sql`SELECT d.edge_id FROM edge_documents d WHERE d.tenant_id = ${tenantId} AND d.document_id = ${from.documentId}`
        : sql`SELECT p.edge_id FROM edge_chunks p JOIN chunks c ON c.tenant_id = p.tenant_id AND c.id = p.chunk_id
              WHERE p.tenant_id = ${tenantId} AND p.chunk_id = ${from.chunkId} AND c.document_id = ${from.documentId}`;
    return this.facts(tenantId, graphId, sql`x.id IN (${ids})`, page);
  }

  private async facts(tenantId: string, graphId: number, which: ReturnType<typeof sql>, page?: { limit: number; offset: number }): Promise<FactRecord[]> {
    const rows = await this.reads.rows<FactRow>(
      sql`SELECT x.id, x.source_id, s.name AS source_name, s.type AS source_type,
            x.target_id, t.name AS target_name, t.type AS target_type, x.relation,
            x.description, x.weight, x.valid_at, x.invalid_at, x.created_at, x.expired_at,
            (SELECT coalesce(json_agg(json_build_object('id', d.id, 'name', d.name) ORDER BY d.id), '[]'::json)
               FROM edge_documents ed JOIN documents d ON d.tenant_id = ed.tenant_id AND d.id = ed.document_id
              WHERE ed.tenant_id = x.tenant_id AND ed.edge_id = x.id) AS documents
          FROM edges x
          JOIN entities s ON s.tenant_id = x.tenant_id AND s.id = x.source_id
          JOIN entities t ON t.tenant_id = x.tenant_id AND t.id = x.target_id
          WHERE x.tenant_id = ${tenantId} AND x.graph_id = ${graphId} AND ${which}
          ORDER BY coalesce(x.valid_at, x.created_at), x.created_at, x.id
          ${page ? sql`LIMIT ${page.limit} OFFSET ${page.offset}` : sql``}`,
      { tenantId, graphId },
    );
    return rows.map(toFactRecord);
  }
}

const asDate = (value: unknown): Date => (value instanceof Date ? value : new Date(String(value)));
const asDateOrNull = (value: unknown): Date | null => (value === null || value === undefined ? null : asDate(value));

function toEntitySummary(row: Record<string, unknown>): EntitySummary {
  return {
    id: Number(row.id),
    name: String(row.name),
    type: (row.type as string | null) ?? null,
    description: (row.description as string | null) ?? null,
    factCount: Number(row.fact_count),
    createdAt: asDate(row.created_at),
    updatedAt: asDate(row.updated_at),
  };
}

function toFactRecord(row: FactRow): FactRecord {
  const documents = typeof row.documents === 'string' ? JSON.parse(row.documents) : (row.documents ?? []);
  return {
    id: Number(row.id),
    sourceId: Number(row.source_id),
    sourceName: row.source_name,
    sourceType: row.source_type ?? null,
    targetId: Number(row.target_id),
    targetName: row.target_name,
    targetType: row.target_type ?? null,
    relation: row.relation,
    description: row.description,
    weight: Number(row.weight),
    validAt: asDateOrNull(row.valid_at),
    invalidAt: asDateOrNull(row.invalid_at),
    createdAt: asDate(row.created_at),
    expiredAt: asDateOrNull(row.expired_at),
    documents: (documents as { id: number; name: string }[]).map((d) => ({ id: Number(d.id), name: d.name })),
  };
}
