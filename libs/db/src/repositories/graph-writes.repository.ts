import { Inject, Injectable, Optional } from '@nestjs/common';
import { and, eq, inArray, isNull, or, SQL, sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from '../database';
import { lexemesOf } from '../lexical';
import { EMBEDDING_DIMENSIONS, NARROW_EMBEDDING_DIMENSIONS } from '../schema/columns';
import { halfvecParam } from '../vector-text';
import { vectorRowsAStatement } from '../vector-rows-a-statement';
import { NARROW_VECTOR, placeByWidth, QUERY_VECTOR, tierColumn, vectorColumnAt, VectorTier, WIDE_VECTOR } from '../vector-width';
import {
  EXACT_NAME_SEARCH_MAX,
  graphEntityCountSql,
  nameIndexSearchSettingsSql,
  NearestByName,
  nearestByNameExactSql,
  nearestByNameThroughIndexSql,
  restoreSortSql,
} from './entity-name-search.sql';
import {
  ChunkRow,
  chunks,
  chunkTerms,
  EdgeRow,
  edges,
  EntityRow,
  entities,
} from '../schema';

/**
 * New rows as ingestion builds them: each vector under its full-width shared name (`embedding`,
 * …), at whatever stored width its model gives; the writes put it in the column of its width
 * and of the graph's tier (vector-width.ts), so callers never name the other columns.
 */
type PlacedColumns = 'embedding256' | 'summaryEmbedding256' | 'nameEmbedding256' | 'ownEmbedding' | 'ownEmbedding256' | 'ownSummaryEmbedding' | 'ownSummaryEmbedding256';
export type NewChunk = Omit<typeof chunks.$inferInsert, 'id' | 'createdAt' | 'termCount' | PlacedColumns>;
export type NewEntity = Omit<typeof entities.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | PlacedColumns>;
export type NewEdge = Omit<typeof edges.$inferInsert, 'id' | 'createdAt' | 'updatedAt' | PlacedColumns>;

/**
 * A searched vector's four columns (two widths, two tiers), as drizzle names them: the vector in
 * the one of its width and the graph's tier, null in the others.
 */
function searchVectorColumns(vector: number[] | null | undefined, tier: VectorTier) {
  const { wide, narrow } = placeByWidth(vector);
  const own = tier === 'own';
  return { shared: { wide: own ? null : wide, narrow: own ? null : narrow }, own: { wide: own ? wide : null, narrow: own ? narrow : null } };
}

/** A new chunk's vectors in the columns of their widths and of the graph's tier. */
export function chunkVectorsByWidth(chunk: NewChunk, tier: VectorTier = 'shared'): typeof chunks.$inferInsert {
  const text = searchVectorColumns(chunk.embedding, tier);
  const summary = searchVectorColumns(chunk.summaryEmbedding, tier);
  return {
    ...chunk,
    embedding: text.shared.wide,
    embedding256: text.shared.narrow,
    ownEmbedding: text.own.wide,
    ownEmbedding256: text.own.narrow,
    summaryEmbedding: summary.shared.wide,
    summaryEmbedding256: summary.shared.narrow,
    ownSummaryEmbedding: summary.own.wide,
    ownSummaryEmbedding256: summary.own.narrow,
  };
}

/** A new entity's vectors in the columns of their widths (its text vector's also of the graph's tier). */
export function entityVectorsByWidth(entity: NewEntity, tier: VectorTier = 'shared'): typeof entities.$inferInsert {
  const text = searchVectorColumns(entity.embedding, tier);
  const name = placeByWidth(entity.nameEmbedding);
  return {
    ...entity,
    embedding: text.shared.wide,
    embedding256: text.shared.narrow,
    ownEmbedding: text.own.wide,
    ownEmbedding256: text.own.narrow,
    nameEmbedding: name.wide,
    nameEmbedding256: name.narrow,
  };
}

/** A new edge's vector in the column of its width and of the graph's tier. */
export function edgeVectorsByWidth(edge: NewEdge, tier: VectorTier = 'shared'): typeof edges.$inferInsert {
  const fact = searchVectorColumns(edge.embedding, tier);
  return { ...edge, embedding: fact.shared.wide, embedding256: fact.shared.narrow, ownEmbedding: fact.own.wide, ownEmbedding256: fact.own.narrow };
}
/** What merging needs of an existing entity. */
export type LockedEntity = Pick<EntityRow, 'id' | 'description' | 'type' | 'embeddingModel'>;
/** What a chunk changes of an existing entity; `embedding` only when its vector is to be rewritten. */
export type EntityPatch = { id: number; description: string | null; type: string | null; embedding?: number[] };
/** The columns of an existing edge that ingestion changes (merge, supersession, ending). */
export type EdgeState = Pick<EdgeRow, 'id' | 'weight' | 'description' | 'validAt' | 'invalidAt' | 'expiredAt'>;

/**
 * A query vector typed like the columns (the store's vector type, QUERY_VECTOR), so
 * `col <=> literal` is the HNSW index's operator; sent as a binary parameter on PostgreSQL
 * (halfvecParam).
 */
export const vectorLiteral = (vector: number[]) => sql`${halfvecParam(vector)}::${QUERY_VECTOR}`;

/** `ids` as one bigint[] parameter (ids are numbers, so the literal is safe and driver-neutral). */
const bigintArray = (ids: number[]) => sql`${`{${ids.map((id) => Math.trunc(id)).join(',')}}`}::bigint[]`;

/**
 * The writes of ingestion. Every method takes the transaction it runs in: one chunk's
 * entities, edges, provenance and progress commit together or not at all. Each method is one
 * statement for the whole chunk (a few for the name search), whatever the number of entities
 * and facts.
 *
 * Lock order, the same in every chunk, so concurrent chunks wait but never deadlock: the
 * advisory locks of the entity names (in key order, one statement), then the rows of existing
 * entities (id order), then the live edges (id order). Everything else the transaction writes
 * is its own new rows, rows it already holds, or its own document's row (one job at a time).
 */
@Injectable()
export class GraphWritesRepository {
  /** New entities and edges a statement: one on PGlite, whose statements hold the API's thread (vectorRowsAStatement). */
  private readonly rowsAStatement: number;

  /** `database` only tells the store's kind; without it (a bare instance in a test) the server's batch. */
  constructor(@Optional() @Inject(DATABASE) database?: Pick<Database, 'kind'>) {
    this.rowsAStatement = vectorRowsAStatement(database?.kind);
  }

  /**
   * Where the graph's searched vectors go (VectorTier), read as a chunk's transaction begins and
   * held until it ends (FOR SHARE): a bulk load that begins meanwhile waits for the chunk to
   * commit and then moves its vectors with the rest, and a chunk that begins after it writes to
   * the graph's own columns. No chunk's vectors can land in the tier the graph just left.
   */
  async vectorTierForWrite(db: Db, tenantId: string, graphId: number): Promise<VectorTier> {
    const [row] = await queryRows<{ own_vectors: string | null }>(
      db,
      sql`SELECT own_vectors FROM graphs WHERE tenant_id = ${tenantId} AND id = ${graphId} FOR SHARE`,
    );
    return row?.own_vectors ? 'own' : 'shared';
  }

  /** Indexes of the document's chunks already written (a resumed job skips them). */
  async writtenChunkIndexes(db: Db, tenantId: string, documentId: number): Promise<Set<number>> {
    const rows = await db
      .select({ index: chunks.index })
      .from(chunks)
      .where(and(eq(chunks.tenantId, tenantId), eq(chunks.documentId, documentId)));
    return new Set(rows.map((r) => r.index));
  }

  /**
   * Inserts a chunk and its lexical index (chunk_terms): `lexicalText` is what it is indexed
   * under (chunkLexicalText). Two statements; the lexemes are PostgreSQL's, so what is indexed
   * and what a question asks are analysed alike on both stores.
   */
  async insertChunk(db: Db, chunk: NewChunk, lexicalText: string, tier: VectorTier = 'shared'): Promise<Pick<ChunkRow, 'id' | 'tenantId' | 'graphId' | 'termCount'>> {
    const termCount = sql<number>`(SELECT coalesce(sum(frequency), 0)::integer FROM ${lexemesOf(lexicalText)} AS l)`;
    const [row] = await db
      .insert(chunks)
      .values({ ...chunkVectorsByWidth(chunk, tier), termCount })
      .returning({ id: chunks.id, tenantId: chunks.tenantId, graphId: chunks.graphId, termCount: chunks.termCount });
    await db.execute(sql`INSERT INTO ${chunkTerms} (tenant_id, graph_id, lexeme, chunk_id, frequency, chunk_length)
      SELECT ${row.tenantId}::uuid, ${row.graphId}::bigint, l.lexeme, ${row.id}::bigint, l.frequency, ${row.termCount}::integer
      FROM ${lexemesOf(lexicalText)} AS l`);
    return row;
  }

  /**
   * Serialises writers of the same entity names in a graph until the transaction ends, so two
   * texts ingested at once do not both create "Acme". All of a chunk's names are locked in one
   * statement, in key order: two chunks naming the same entities in another order then wait for
   * each other instead of deadlocking.
   */
  async lockEntityNames(db: Db, tenantId: string, graphId: number, normalizedNames: string[]): Promise<void> {
    await this.lockEntityNamesOfGraphs(db, tenantId, normalizedNames.map((normalizedName) => ({ graphId, normalizedName })));
  }

  /**
   * The same locks for names of several graphs of the tenant (the geo backfill's page), all in
   * one statement and one key order, so it waits for writers of any of its graphs, or they for
   * it, without a cycle.
   */
  async lockEntityNamesOfGraphs(db: Db, tenantId: string, names: Array<{ graphId: number; normalizedName: string }>): Promise<void> {
    if (names.length === 0) return;
    const keys = sql.join(
      names.map(({ graphId, normalizedName }) => sql`${`${tenantId}:${graphId}:${normalizedName}`}`),
      sql`, `,
    );
    // The subquery (not flattened: it sorts) hands the keys over in order, and the outer query
    // locks each as it receives it.
    await db.execute(sql`SELECT pg_advisory_xact_lock(k)
      FROM (SELECT DISTINCT hashtext(name)::bigint AS k FROM unnest(ARRAY[${keys}]::text[]) AS name ORDER BY k) AS keys`);
  }

  /**
   * Entities of the graph with these normalised names: name → the oldest such entity's id. The
   * names go as one JSON parameter: a text of thousands of names (and each name's fuller forms,
   * shorter-names.ts) made tens of thousands of bound parameters, which the query builder took
   * over a second to assemble on the event loop (test/e2e/cpu-off-event-loop).
   */
  async entityIdsByNormalizedName(db: Db, tenantId: string, graphId: number, normalizedNames: string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    if (normalizedNames.length === 0) return found;
    const wanted = sql`(SELECT jsonb_array_elements_text(${JSON.stringify([...new Set(normalizedNames)])}::jsonb))`;
    const rows = await db
      .select({ id: entities.id, normalizedName: entities.normalizedName })
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), eq(entities.graphId, graphId), sql`${entities.normalizedName} IN ${wanted}`))
      .orderBy(entities.id);
    for (const row of rows) if (!found.has(row.normalizedName)) found.set(row.normalizedName, row.id);
    return found;
  }

  /**
   * For each of `vectors`, the graph's entity whose name vector is closest, with its cosine
   * similarity (undefined when the graph has none): exactly in a small graph, through the HNSW
   * index in a large one (see entity-name-search.sql.ts). One statement for all the names.
   */
  async nearestEntitiesByName(
    db: Db,
    tenantId: string,
    graphId: number,
    vectors: number[][],
    /** `embeddingModel`: compare only with entities that model embedded (rows of others are skipped). */
    options: { exactUpTo?: number; embeddingModel?: string } = {},
  ): Promise<Array<{ id: number; similarity: number } | undefined>> {
    if (vectors.length === 0) return [];
    const exactUpTo = options.exactUpTo ?? EXACT_NAME_SEARCH_MAX;
    const [{ n }] = await queryRows<{ n: number }>(db, graphEntityCountSql(tenantId, graphId, exactUpTo + 1));
    let rows: NearestByName[];
    if (Number(n) <= exactUpTo) {
      rows = await queryRows<NearestByName>(db, nearestByNameExactSql(tenantId, graphId, vectors, options.embeddingModel));
    } else {
      const [{ previous }] = await queryRows<{ previous: string }>(db, nameIndexSearchSettingsSql());
      rows = await queryRows<NearestByName>(db, nearestByNameThroughIndexSql(tenantId, graphId, vectors, options.embeddingModel));
      await db.execute(restoreSortSql(previous));
    }
    const nearest: Array<{ id: number; similarity: number } | undefined> = vectors.map(() => undefined);
    for (const row of rows) nearest[Number(row.i)] = { id: Number(row.id), similarity: Number(row.similarity) };
    return nearest;
  }

  /**
   * Locks existing entities a chunk writes to (in id order, so writers never wait on each
   * other in a circle) and reads what merging needs, as of now.
   */
  async lockEntities(db: Db, tenantId: string, entityIds: number[]): Promise<LockedEntity[]> {
    if (entityIds.length === 0) return [];
    return db
      .select({ id: entities.id, description: entities.description, type: entities.type, embeddingModel: entities.embeddingModel })
      .from(entities)
      .where(and(eq(entities.tenantId, tenantId), inArray(entities.id, entityIds)))
      .orderBy(entities.id)
      .for('no key update');
  }

  /** Inserts entities in the order given (ids ascend with it). */
  async insertEntities(db: Db, rows: NewEntity[], tier: VectorTier = 'shared'): Promise<Array<{ id: number; normalizedName: string }>> {
    const inserted: Array<{ id: number; normalizedName: string }> = [];
    for (const batch of batchesOf(rows, this.rowsAStatement)) {
      inserted.push(
        ...(await db
          .insert(entities)
          .values(batch.map((row) => entityVectorsByWidth(row, tier)))
          .returning({ id: entities.id, normalizedName: entities.normalizedName })),
      );
    }
    return inserted;
  }

  /**
   * Coordinates for entities that have none (geo: remember's places, the geo backfill's); an
   * entity's coordinates are never moved. Answers how many entities got them.
   */
  async setMissingCoordinates(db: Db, tenantId: string, rows: Array<{ id: number; latitude: number; longitude: number }>): Promise<number> {
    if (rows.length === 0) return 0;
    const values = sql.join(
      rows.map((r) => sql`(${r.id}::bigint, ${r.latitude}::float8, ${r.longitude}::float8)`),
      sql`, `,
    );
    const located = await queryRows<{ id: unknown }>(
      db,
      sql`UPDATE entities e SET latitude = v.lat, longitude = v.lon
        FROM (VALUES ${values}) AS v(id, lat, lon)
        WHERE e.tenant_id = ${tenantId} AND e.id = v.id AND e.latitude IS NULL
        RETURNING e.id`,
    );
    return located.length;
  }

  /**
   * Writes merged descriptions and types, and `embedding` only for the patches that carry one.
   * The rows whose vectors stay get a statement that does not name the vector columns, so with
   * no indexed column changed the update can be HOT (no new index entries, no HNSW insertions);
   * the rows with a new vector get one that sets it, in both widths (the other becomes null).
   * One statement, assigning each row's own vector back through a CASE, was not HOT: the vector
   * sent is typed by a domain (vector-width.ts), a domain's expression has no typmod, and the
   * CASE's result was coerced to the column's width, which detoasts the kept vector into a new
   * value (measured: 0 of 1 050 merges when that happened with a bare `halfvec`).
   * `name_embedding` is never rewritten: a name's vector is written once, at insert.
   */
  async updateEntities(db: Db, tenantId: string, patches: EntityPatch[], tier: VectorTier = 'shared'): Promise<void> {
    const kept = patches.filter((p) => p.embedding === undefined);
    const replaced = patches.filter((p) => p.embedding !== undefined);
    if (kept.length > 0) {
      const values = sql.join(
        kept.map((p) => sql`(${p.id}::bigint, ${p.description}::text, ${p.type}::text)`),
        sql`, `,
      );
      await db.execute(sql`UPDATE entities AS e SET description = v.description, type = v.type, updated_at = now()
        FROM (VALUES ${values}) AS v(id, description, type)
        WHERE e.tenant_id = ${tenantId} AND e.id = v.id`);
    }
    if (replaced.length > 0) {
      const values = sql.join(
        replaced.map((p) => {
          const { wide, narrow } = placeByWidth(p.embedding);
          return sql`(${p.id}::bigint, ${p.description}::text, ${p.type}::text,
            ${wide ? halfvecParam(wide) : null}::${WIDE_VECTOR}, ${narrow ? halfvecParam(narrow) : null}::${NARROW_VECTOR})`;
        }),
        sql`, `,
      );
      const column = tierColumn('embedding', tier);
      await db.execute(sql`UPDATE entities AS e SET description = v.description, type = v.type,
          ${sql.raw(vectorColumnAt(column, EMBEDDING_DIMENSIONS))} = v.wide, ${sql.raw(vectorColumnAt(column, NARROW_EMBEDDING_DIMENSIONS))} = v.narrow, updated_at = now()
        FROM (VALUES ${values}) AS v(id, description, type, wide, narrow)
        WHERE e.tenant_id = ${tenantId} AND e.id = v.id`);
    }
  }

  /**
   * Live (not superseded) edges leaving each source with one of its relations, and those
   * arriving at each of `atTargets` with one of its relations (an organization's CEO: whoever
   * holds the role), in one statement locked in id order (after the chunk's entities, so lock
   * order is the same in every chunk).
   */
  async lockLiveEdges(
    db: Db,
    tenantId: string,
    wanted: Array<{ sourceId: number; relations: readonly string[] }>,
    atTargets: Array<{ targetId: number; relations: readonly string[] }> = [],
  ): Promise<EdgeRow[]> {
    const pairs = wanted.flatMap(({ sourceId, relations }) => relations.map((relation) => sql`(${sourceId}::bigint, ${relation}::text)`));
    const targetPairs = atTargets.flatMap(({ targetId, relations }) => relations.map((relation) => sql`(${targetId}::bigint, ${relation}::text)`));
    const bySource =
      pairs.length === 0
        ? undefined
        : and(
            inArray(edges.sourceId, [...new Set(wanted.map((w) => w.sourceId))]),
            sql`(${edges.sourceId}, ${edges.relation}) IN (${sql.join(pairs, sql`, `)})`,
          );
    const byTarget =
      targetPairs.length === 0
        ? undefined
        : and(
            inArray(edges.targetId, [...new Set(atTargets.map((w) => w.targetId))]),
            sql`(${edges.targetId}, ${edges.relation}) IN (${sql.join(targetPairs, sql`, `)})`,
          );
    if (!bySource && !byTarget) return [];
    return db
      .select()
      .from(edges)
      .where(and(eq(edges.tenantId, tenantId), isNull(edges.expiredAt), bySource && byTarget ? or(bySource, byTarget) : (bySource ?? byTarget)))
      .orderBy(edges.id)
      .for('no key update');
  }

  /** Inserts edges in the order given (ids ascend with it). */
  async insertEdges(db: Db, rows: NewEdge[], tier: VectorTier = 'shared'): Promise<Array<{ id: number; sourceId: number; relation: string; targetId: number }>> {
    const inserted: Array<{ id: number; sourceId: number; relation: string; targetId: number }> = [];
    for (const batch of batchesOf(rows, this.rowsAStatement)) {
      inserted.push(
        ...(await db
          .insert(edges)
          .values(batch.map((row) => edgeVectorsByWidth(row, tier)))
          .returning({ id: edges.id, sourceId: edges.sourceId, relation: edges.relation, targetId: edges.targetId })),
      );
    }
    return inserted;
  }

  /** Writes the given state of edges the transaction holds (merged, superseded or ended). */
  async updateEdges(db: Db, tenantId: string, states: EdgeState[]): Promise<void> {
    if (states.length === 0) return;
    const at = (date: Date | null) => (date ? date.toISOString() : null);
    const values = sql.join(
      states.map(
        (e) =>
          sql`(${e.id}::bigint, ${e.weight}::float8, ${e.description}::text, ${at(e.validAt)}::timestamptz, ${at(e.invalidAt)}::timestamptz, ${at(e.expiredAt)}::timestamptz)`,
      ),
      sql`, `,
    );
    await db.execute(sql`UPDATE edges AS x
      SET weight = v.weight, description = v.description, valid_at = v.valid_at, invalid_at = v.invalid_at,
          expired_at = v.expired_at, updated_at = now()
      FROM (VALUES ${values}) AS v(id, weight, description, valid_at, invalid_at, expired_at)
      WHERE x.tenant_id = ${tenantId} AND x.id = v.id`);
  }

  /** Records that a document (and its chunk, when it has one) supports these entities and edges. */
  async addProvenance(
    db: Db,
    tenantId: string,
    support: { documentId: number; chunkId?: number; entityIds: number[]; edgeIds: number[] },
  ): Promise<void> {
    const { documentId, chunkId, entityIds, edgeIds } = support;
    const inserts: SQL[] = [];
    const add = (table: string, column: string, ids: number[], ownerColumn: string, ownerId: number) => {
      if (ids.length === 0) return;
      inserts.push(sql`INSERT INTO ${sql.raw(table)} (tenant_id, ${sql.raw(column)}, ${sql.raw(ownerColumn)})
        SELECT ${tenantId}::uuid, id, ${ownerId}::bigint FROM unnest(${bigintArray(ids)}) AS id
        ON CONFLICT DO NOTHING`);
    };
    add('entity_documents', 'entity_id', entityIds, 'document_id', documentId);
    add('edge_documents', 'edge_id', edgeIds, 'document_id', documentId);
    if (chunkId !== undefined) {
      add('entity_chunks', 'entity_id', entityIds, 'chunk_id', chunkId);
      add('edge_chunks', 'edge_id', edgeIds, 'chunk_id', chunkId);
    }
    if (inserts.length === 0) return;
    // One statement: each insert is a data-modifying CTE.
    const ctes = sql.join(
      inserts.map((insert, i) => sql`${sql.raw(`w${i}`)} AS (${insert})`),
      sql`, `,
    );
    await db.execute(sql`WITH ${ctes} SELECT 1`);
  }
}

/** `rows` in order, `size` at a time. */
function batchesOf<T>(rows: T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let at = 0; at < rows.length; at += size) batches.push(rows.slice(at, at + size));
  return batches;
}
