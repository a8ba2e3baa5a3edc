import { Injectable } from '@nestjs/common';
import { sql, SQL } from 'drizzle-orm';
import { Db, queryRows } from '../database';
import { halfvecText } from '../vector-text';
import { NARROW_VECTOR, placeByWidth, SearchVectorColumn, StoredVectorWidth, tierColumn, vectorColumnAt, VectorTier, WIDE_VECTOR } from '../vector-width';

/** `vector`'s text in the column of its width (`wide`: 1024, `narrow`: 256), null in the other. */
function textsByWidth(vector: number[] | null): { wide: string | null; narrow: string | null } {
  const { wide, narrow } = placeByWidth(vector);
  return { wide: wide && halfvecText(wide), narrow: narrow && halfvecText(narrow) };
}

/**
 * The assignments of a searched vector (`wide` at 1024, `narrow` at 256) to the columns of the
 * row's graph's tier (`g`, joined by the statement), nulling the other tier's: a graph in its own
 * tier (bulk mode, graphs.own_vectors) keeps its searched vectors in `own_*` (vector-width.ts).
 */
function inTier(column: SearchVectorColumn, wide: SQL, narrow: SQL): SQL {
  const shared = sql`g.own_vectors IS NULL`;
  const own = sql`g.own_vectors IS NOT NULL`;
  const at = (tier: VectorTier, width: StoredVectorWidth) => sql.raw(vectorColumnAt(tierColumn(column, tier), width));
  return sql`${at('shared', 1024)} = CASE WHEN ${shared} THEN ${wide} END, ${at('shared', 256)} = CASE WHEN ${shared} THEN ${narrow} END,
    ${at('own', 1024)} = CASE WHEN ${own} THEN ${wide} END, ${at('own', 256)} = CASE WHEN ${own} THEN ${narrow} END`;
}

/** Which rows a re-embedding covers: every tenant, one tenant, or one graph of a tenant. */
export interface ReembedScope {
  tenantId?: string;
  graphId?: number;
  /**
   * Only rows an offline embedder wrote (`local:…`): moving them costs nothing, whereas moving a
   * paid model's vectors to another is an operator's decision (`loci reembed`).
   */
  onlyOfflineEmbedders?: boolean;
}

/** The provider prefix of the offline embedders' names in `embedding_model`. */
export const OFFLINE_EMBEDDER_PREFIX = 'local:';

/** Where a page starts: after this row in (tenant, id) order. */
export interface RowKey {
  tenantId: string;
  id: number;
}

export interface ChunkToReembed extends RowKey {
  text: string;
  summary: string | null;
}

export interface EntityToReembed extends RowKey {
  name: string;
  description: string | null;
}

export interface EdgeToReembed extends RowKey {
  relation: string;
  description: string | null;
  sourceName: string;
  targetName: string;
}

export interface ChunkVectors extends RowKey {
  embedding: number[];
  summaryEmbedding: number[] | null;
}

export interface EntityVectors extends RowKey {
  embedding: number[];
  nameEmbedding: number[];
}

export interface EdgeVectors extends RowKey {
  embedding: number[];
}

export type ReembedTable = 'chunks' | 'entities' | 'edges';

/**
 * The reads and writes of re-embedding a graph with another embedder: pages of the rows whose
 * `embedding_model` is not yet the target, in (tenant, id) order (the primary key), and one
 * statement a page that writes their new vectors together with the target's name. A row is
 * never half-moved: its vectors and its model name change in the same statement, so a search
 * scoped to either model never compares vectors of the other.
 */
@Injectable()
export class ReembedRepository {
  /** Rows of `table` in scope still embedded by another model (or by none). */
  async countToReembed(db: Db, table: ReembedTable, scope: ReembedScope, model: string): Promise<number> {
    const [{ n }] = await queryRows<{ n: string | number }>(
      db,
      sql`SELECT count(*) AS n FROM ${sql.raw(table)} t WHERE ${pending(scope, model)}`,
    );
    return Number(n);
  }

  async chunksToReembed(db: Db, scope: ReembedScope, model: string, after: RowKey | null, limit: number): Promise<ChunkToReembed[]> {
    const rows = await queryRows<{ tenant_id: string; id: string | number; text: string; summary: string | null }>(
      db,
      sql`SELECT t.tenant_id, t.id, t.text, t.summary FROM chunks t
          WHERE ${pending(scope, model)}${afterKey(after)}
          ORDER BY t.tenant_id, t.id LIMIT ${limit}`,
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: Number(r.id), text: r.text, summary: r.summary }));
  }

  async entitiesToReembed(db: Db, scope: ReembedScope, model: string, after: RowKey | null, limit: number): Promise<EntityToReembed[]> {
    const rows = await queryRows<{ tenant_id: string; id: string | number; name: string; description: string | null }>(
      db,
      sql`SELECT t.tenant_id, t.id, t.name, t.description FROM entities t
          WHERE ${pending(scope, model)}${afterKey(after)}
          ORDER BY t.tenant_id, t.id LIMIT ${limit}`,
    );
    return rows.map((r) => ({ tenantId: r.tenant_id, id: Number(r.id), name: r.name, description: r.description }));
  }

  /** Superseded facts too: they are kept (and read by history), so they move with the rest. */
  async edgesToReembed(db: Db, scope: ReembedScope, model: string, after: RowKey | null, limit: number): Promise<EdgeToReembed[]> {
    const rows = await queryRows<{
      tenant_id: string;
      id: string | number;
      relation: string;
      description: string | null;
      source_name: string;
      target_name: string;
    }>(
      db,
      sql`SELECT t.tenant_id, t.id, t.relation, t.description, s.name AS source_name, o.name AS target_name
          FROM edges t
          JOIN entities s ON s.tenant_id = t.tenant_id AND s.id = t.source_id
          JOIN entities o ON o.tenant_id = t.tenant_id AND o.id = t.target_id
          WHERE ${pending(scope, model)}${afterKey(after)}
          ORDER BY t.tenant_id, t.id LIMIT ${limit}`,
    );
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      id: Number(r.id),
      relation: r.relation,
      description: r.description,
      sourceName: r.source_name,
      targetName: r.target_name,
    }));
  }

  /** Writes each vector in the column of its width and nulls the other: a graph moved to another width keeps no stale copy. */
  async setChunkVectors(db: Db, model: string, rows: ChunkVectors[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const text = textsByWidth(r.embedding);
      const summary = textsByWidth(r.summaryEmbedding);
      return { tenant_id: r.tenantId, id: r.id, e: text.wide, e256: text.narrow, s: summary.wide, s256: summary.narrow };
    });
    await db.execute(sql`
      UPDATE chunks t SET ${inTier('embedding', sql`v.e::${WIDE_VECTOR}`, sql`v.e256::${NARROW_VECTOR}`)},
        ${inTier('summary_embedding', sql`v.s::${WIDE_VECTOR}`, sql`v.s256::${NARROW_VECTOR}`)}, embedding_model = ${model}
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(tenant_id uuid, id bigint, e text, e256 text, s text, s256 text),
        graphs g
      WHERE t.tenant_id = v.tenant_id AND t.id = v.id AND t.embedding_model IS DISTINCT FROM ${model}
        AND g.tenant_id = t.tenant_id AND g.id = t.graph_id`);
  }

  async setEntityVectors(db: Db, model: string, rows: EntityVectors[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const text = textsByWidth(r.embedding);
      const name = textsByWidth(r.nameEmbedding);
      return { tenant_id: r.tenantId, id: r.id, e: text.wide, e256: text.narrow, n: name.wide, n256: name.narrow };
    });
    await db.execute(sql`
      UPDATE entities t SET ${inTier('embedding', sql`v.e::${WIDE_VECTOR}`, sql`v.e256::${NARROW_VECTOR}`)},
        name_embedding = v.n::${WIDE_VECTOR}, name_embedding_256 = v.n256::${NARROW_VECTOR}, embedding_model = ${model}
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(tenant_id uuid, id bigint, e text, e256 text, n text, n256 text),
        graphs g
      WHERE t.tenant_id = v.tenant_id AND t.id = v.id AND t.embedding_model IS DISTINCT FROM ${model}
        AND g.tenant_id = t.tenant_id AND g.id = t.graph_id`);
  }

  async setEdgeVectors(db: Db, model: string, rows: EdgeVectors[]): Promise<void> {
    if (rows.length === 0) return;
    const values = rows.map((r) => {
      const fact = textsByWidth(r.embedding);
      return { tenant_id: r.tenantId, id: r.id, e: fact.wide, e256: fact.narrow };
    });
    await db.execute(sql`
      UPDATE edges t SET ${inTier('embedding', sql`v.e::${WIDE_VECTOR}`, sql`v.e256::${NARROW_VECTOR}`)}, embedding_model = ${model}
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(tenant_id uuid, id bigint, e text, e256 text),
        graphs g
      WHERE t.tenant_id = v.tenant_id AND t.id = v.id AND t.embedding_model IS DISTINCT FROM ${model}
        AND g.tenant_id = t.tenant_id AND g.id = t.graph_id`);
  }

  /**
   * Every moved row left a dead version in its table and in each HNSW index over it; searches
   * step over those until a vacuum clears them, and PGlite has no autovacuum.
   */
  async vacuum(db: Db, tables: ReembedTable[]): Promise<void> {
    if (tables.length > 0) await db.execute(sql.raw(`VACUUM (ANALYZE) ${tables.join(', ')}`));
  }
}

/** Rows in scope not yet embedded by `model`, as `t`. */
function pending(scope: ReembedScope, model: string): SQL {
  const tenant = scope.tenantId === undefined ? sql`` : sql` AND t.tenant_id = ${scope.tenantId}`;
  const graph = scope.graphId === undefined ? sql`` : sql` AND t.graph_id = ${scope.graphId}`;
  const offline = scope.onlyOfflineEmbedders ? sql` AND starts_with(t.embedding_model, ${OFFLINE_EMBEDDER_PREFIX})` : sql``;
  return sql`t.embedding_model IS DISTINCT FROM ${model}${tenant}${graph}${offline}`;
}

function afterKey(after: RowKey | null): SQL {
  return after === null ? sql`` : sql` AND (t.tenant_id, t.id) > (${after.tenantId}::uuid, ${after.id})`;
}
