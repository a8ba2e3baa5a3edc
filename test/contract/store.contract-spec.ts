import { getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as loci from '@loci/db';
import {
  Database,
  Db,
  edges,
  EMBEDDING_DIMENSIONS,
  NARROW_EMBEDDING_DIMENSIONS,
  entities,
  findMigrationsFolder,
  graphs,
  GraphWritesRepository,
  migrationsApplied,
  nameIndexSearchSettingsSql,
  nearestByNameThroughIndexSql,
  openDatabase,
  PgliteDatabase,
  PostgresDatabase,
  QuestionCountsRepository,
  queryRows,
  shippedMigrationCount,
  sqlState,
  storedVectorType,
  tenants,
} from '@loci/db';
import { createEmptyPostgresDatabase, createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * The storage contract: what the rest of Loci may assume about the store, checked on whichever
 * store the environment selects (DATABASE_URL → PostgreSQL + pgvector, otherwise PGlite).
 * CI runs it both ways, so a schema or driver difference between the two shows up here first.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const migrationsFolder = findMigrationsFolder();

/** Every table the drizzle schema declares; the migrations must create each of them. */
const schemaTableNames = Object.values(loci as Record<string, unknown>)
  .filter((value): value is PgTable => is(value, PgTable))
  .map((table) => getTableName(table))
  .sort();

const vectorLiteral = (vector: number[]) => `[${vector.join(',')}]`;

/**
 * A unit vector `degrees` away from the first axis, turned towards axis `towards`. Its cosine
 * similarity to the first axis is cos(degrees), so angles give a known nearest-neighbour order.
 */
function unitVectorAt(degrees: number, towards: number): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  const radians = (degrees * Math.PI) / 180;
  vector[0] = Math.cos(radians);
  vector[towards] = Math.sin(radians);
  return vector;
}

/** Deterministic numbers in [0, 1) (mulberry32), so a failing vector test can be replayed. */
function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const unit = (vector: number[]) => {
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
};

/** The SQLSTATE an operation fails with, or a word saying why there is none (for readable failures). */
async function failureCode(operation: PromiseLike<unknown>): Promise<string> {
  try {
    await operation;
  } catch (error) {
    return sqlState(error) ?? `no SQLSTATE: ${String(error)}`;
  }
  return 'succeeded';
}

async function countAppliedMigrations(db: Db): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`);
  return Number(row.n);
}

/** After any number of migrate() calls: each shipped migration recorded once, every table there. */
async function expectMigratedExactlyOnce(db: Db): Promise<void> {
  const perHash = await queryRows<{ hash: string; n: number }>(
    db,
    sql`SELECT hash, count(*)::int AS n FROM drizzle.__drizzle_migrations GROUP BY hash`,
  );
  expect(perHash).toHaveLength(shippedMigrationCount(migrationsFolder));
  expect(perHash.filter((row) => Number(row.n) !== 1)).toEqual([]);

  const tables = await queryRows<{ table_name: string }>(
    db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
  );
  expect(tables.map((row) => row.table_name)).toEqual(expect.arrayContaining(schemaTableNames));
}

describe(`store contract (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(migrationsFolder);
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  /** Each test builds its own tenant and default graph instead of sharing or truncating rows. */
  async function createTenantWithGraph(): Promise<{ tenantId: string; graphId: number }> {
    const [tenant] = await database.db.insert(tenants).values({ name: 'contract tenant' }).returning();
    const [graph] = await database.db
      .insert(graphs)
      .values({ tenantId: tenant.id, kind: 'default', name: 'default' })
      .returning();
    return { tenantId: tenant.id, graphId: graph.id };
  }

  async function createEntity(tenantId: string, graphId: number, name: string, embedding?: number[]): Promise<number> {
    const [entity] = await database.db
      .insert(entities)
      .values({
        tenantId,
        graphId,
        name,
        normalizedName: name.toLowerCase(),
        embedding,
        embeddingModel: embedding ? 'contract-test' : undefined,
      })
      .returning({ id: entities.id });
    return entity.id;
  }

  describe('migrations', () => {
    it('are applied at open, and the vector extension exists', async () => {
      expect(database.kind).toBe(onPostgres ? 'postgres' : 'pglite');
      await expect(migrationsApplied(database, migrationsFolder)).resolves.toBe(true);
      const extensions = await queryRows<{ extname: string }>(
        database.db,
        sql`SELECT extname FROM pg_extension WHERE extname = 'vector'`,
      );
      expect(extensions).toHaveLength(1);
    });

    it('are a no-op when applied again', async () => {
      const before = await countAppliedMigrations(database.db);
      await database.migrate(migrationsFolder);
      expect(await countAppliedMigrations(database.db)).toBe(before);
      expect(before).toBe(shippedMigrationCount(migrationsFolder));
    });

    it(
      onPostgres
        ? 'apply exactly once when two instances migrate an empty database at the same time'
        : 'apply exactly once when one instance is asked to migrate twice at the same time',
      async () => {
        if (onPostgres) {
          // Two servers booting together: separate pools, so the advisory lock is what serializes them.
          const empty = await createEmptyPostgresDatabase(process.env.DATABASE_URL!);
          const first = PostgresDatabase.connect(empty.url, 2);
          const second = PostgresDatabase.connect(empty.url, 2);
          try {
            await Promise.all([first.migrate(migrationsFolder), second.migrate(migrationsFolder)]);
            await expectMigratedExactlyOnce(first.db);
          } finally {
            await Promise.all([first.close(), second.close()]);
            await empty.drop();
          }
        } else {
          // PGlite is single-process by design (one process owns its data directory), so the
          // only concurrency there is can be two callers inside one process on one instance.
          const fresh = await PgliteDatabase.open();
          try {
            await Promise.all([fresh.migrate(migrationsFolder), fresh.migrate(migrationsFolder)]);
            await expectMigratedExactlyOnce(fresh.db);
          } finally {
            await fresh.close();
          }
        }
      },
    );
  });

  describe('structure', () => {
    it('puts tenant_id first in the primary key of every tenant-owned table', async () => {
      const rows = await queryRows<{ table_name: string; is_nullable: string; first_pk_column: string | null }>(
        database.db,
        sql`SELECT c.table_name, c.is_nullable,
                   (SELECT a.attname
                      FROM pg_index i
                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
                     WHERE i.indrelid = format('%I.%I', c.table_schema, c.table_name)::regclass
                       AND i.indisprimary) AS first_pk_column
              FROM information_schema.columns c
             WHERE c.table_schema = 'public' AND c.column_name = 'tenant_id'
             ORDER BY c.table_name`,
      );
      // `users` is the one global table with a tenant_id: operators have none, and login finds a
      // user by email before any tenant is known. Every other tenant_id is NOT NULL and leads the
      // primary key, so the schema can be distributed by tenant (Citus) without rework.
      expect(rows.filter((row) => row.is_nullable === 'YES').map((row) => row.table_name)).toEqual(['users']);
      const tenantOwned = rows.filter((row) => row.is_nullable === 'NO');
      expect(tenantOwned.length).toBeGreaterThan(10);
      expect(tenantOwned.filter((row) => row.first_pk_column !== 'tenant_id')).toEqual([]);
    });

    it("makes every vector column the store's type (halfvec; vector on PGlite) at a stored width (1024, or 256 beside its 1024 twin) with an HNSW cosine index and an embedding_model beside it", async () => {
      const type = storedVectorType(database.kind);
      const vectorColumns = await queryRows<{ table_name: string; column_name: string; type: string }>(
        database.db,
        sql`SELECT c.relname AS table_name, a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS type
              FROM pg_attribute a
              JOIN pg_class c ON c.oid = a.attrelid
              JOIN pg_namespace n ON n.oid = c.relnamespace
              JOIN pg_type t ON t.oid = a.atttypid
             WHERE n.nspname = 'public' AND c.relkind = 'r' AND t.typname IN ('vector', 'halfvec')
               AND a.attnum > 0 AND NOT a.attisdropped`,
      );
      // Guards against a vacuous pass: chunks (text + summary), entities and edges hold vectors.
      expect(vectorColumns.length).toBeGreaterThanOrEqual(4);
      // Half precision on PostgreSQL: three 1024-d HNSW elements share an index page; single on
      // PGlite, where half precision is converted in software (docs/decisions/0007-embedded-store-single-precision.md).
      // A narrow column is named for its width and has a full-width twin (vector-width.ts).
      const misfits = vectorColumns.filter(({ table_name, column_name, type: columnType }) => {
        if (columnType === `${type}(${EMBEDDING_DIMENSIONS})`) return false;
        if (columnType !== `${type}(${NARROW_EMBEDDING_DIMENSIONS})` || !column_name.endsWith(`_${NARROW_EMBEDDING_DIMENSIONS}`)) return true;
        const twin = column_name.slice(0, -`_${NARROW_EMBEDDING_DIMENSIONS}`.length);
        return !vectorColumns.some((other) => other.table_name === table_name && other.column_name === twin);
      });
      expect(misfits).toEqual([]);
      // A graph's own columns (bulk mode, `own_*`) are the twins of the searched shared ones.
      const own = vectorColumns.filter(({ column_name }) => column_name.startsWith('own_'));
      const shared = vectorColumns.filter(({ column_name }) => !column_name.startsWith('own_'));
      expect(shared.filter((column) => column.type === `${type}(${NARROW_EMBEDDING_DIMENSIONS})`).length).toBe(5);
      expect(own.map(({ table_name, column_name }) => `${table_name}.${column_name}`).sort()).toEqual([
        'chunks.own_embedding',
        'chunks.own_embedding_256',
        'chunks.own_summary_embedding',
        'chunks.own_summary_embedding_256',
        'edges.own_embedding',
        'edges.own_embedding_256',
        'entities.own_embedding',
        'entities.own_embedding_256',
      ]);
      for (const column of own) {
        expect(shared).toContainEqual({ ...column, column_name: column.column_name.slice('own_'.length) });
      }

      const indexes = await queryRows<{ tablename: string; indexdef: string }>(
        database.db,
        sql`SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'`,
      );
      // No index every tenant shares covers a graph's own columns: a graph's own are partial on its id.
      expect(indexes.filter((index) => / \(own_/.test(index.indexdef) && !/WHERE \(graph_id = \d+\)$/.test(index.indexdef))).toEqual([]);
      const withoutHnsw = shared.filter(
        ({ table_name, column_name }) =>
          !indexes.some(
            (index) =>
              index.tablename === table_name &&
              index.indexdef.includes(`USING hnsw (${column_name} ${type}_cosine_ops)`),
          ),
      );
      expect(withoutHnsw).toEqual([]);

      // Vectors from different models must never be compared, so each row records its model.
      const modelColumns = await queryRows<{ table_name: string }>(
        database.db,
        sql`SELECT table_name FROM information_schema.columns
             WHERE table_schema = 'public' AND column_name = 'embedding_model'`,
      );
      const tablesWithVectors = [...new Set(vectorColumns.map((column) => column.table_name))];
      expect(modelColumns.map((row) => row.table_name)).toEqual(expect.arrayContaining(tablesWithVectors));
    });

    it('gives edges bi-temporal columns and live-edge partial indexes', async () => {
      const columns = await queryRows<{ column_name: string }>(
        database.db,
        sql`SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'edges'`,
      );
      expect(columns.map((row) => row.column_name)).toEqual(
        expect.arrayContaining(['valid_at', 'invalid_at', 'created_at', 'expired_at']),
      );
      const partial = await queryRows<{ indexname: string }>(
        database.db,
        sql`SELECT indexname FROM pg_indexes
             WHERE schemaname = 'public' AND tablename = 'edges' AND indexdef LIKE '%WHERE (expired_at IS NULL)%'`,
      );
      expect(partial.map((row) => row.indexname).sort()).toEqual(['edges_live_graph_idx', 'edges_live_source_idx', 'edges_live_target_idx']);
    });
  });

  describe('vectors', () => {
    const query = unitVectorAt(0, 1);

    it('returns cosine nearest neighbours in order', async () => {
      const { tenantId, graphId } = await createTenantWithGraph();
      // Inserted out of order, so a correct answer cannot come from insertion order.
      const far = await createEntity(tenantId, graphId, 'Far', unitVectorAt(70, 3));
      const near = await createEntity(tenantId, graphId, 'Near', unitVectorAt(10, 1));
      const middle = await createEntity(tenantId, graphId, 'Middle', unitVectorAt(40, 2));

      const rows = await queryRows<{ id: number | string; distance: number }>(
        database.db,
        sql`SELECT id, embedding <=> ${vectorLiteral(query)}::loci_vector AS distance
              FROM entities
             WHERE tenant_id = ${tenantId}
             ORDER BY embedding <=> ${vectorLiteral(query)}::loci_vector
             LIMIT 3`,
      );
      expect(rows.map((row) => Number(row.id))).toEqual([near, middle, far]);
      // Cosine distance is 1 - cos(angle) for these unit vectors, to half precision's ~3 digits
      // (an 11-bit mantissa a component).
      [10, 40, 70].forEach((degrees, i) =>
        expect(Number(rows[i].distance)).toBeCloseTo(1 - Math.cos((degrees * Math.PI) / 180), 3),
      );
    });

    it('answers the nearest-neighbour query from the HNSW index', async () => {
      // A handful of rows makes a sequential scan cheaper, so the planner is told to avoid it;
      // SET LOCAL keeps that inside this transaction's session.
      const plan = await database.db.transaction(async (tx) => {
        await tx.execute(sql`SET LOCAL enable_seqscan = off`);
        return queryRows<Record<string, string>>(
          tx,
          sql`EXPLAIN SELECT id FROM entities ORDER BY embedding <=> ${sql.raw(`'${vectorLiteral(query)}'`)}::loci_vector LIMIT 3`,
        );
      });
      expect(plan.map((row) => Object.values(row).join(' ')).join('\n')).toContain('entities_embedding_hnsw');
    });

    it('finds the nearest entity by name vector for many names at once, exactly or through the HNSW index', async () => {
      const { tenantId, graphId } = await createTenantWithGraph();
      const other = await createTenantWithGraph();
      // 80 scattered names; this graph holds each slightly moved, another tenant holds the very
      // vectors asked for (the filter must keep them out).
      const random = seededRandom(7);
      const scattered = Array.from({ length: 80 }, () => unit(Array.from({ length: EMBEDDING_DIMENSIONS }, () => random() - 0.5)));
      const moved = scattered.map((vector) => unit(vector.map((x) => x + (random() - 0.5) * 0.01)));
      const insert = (scope: { tenantId: string; graphId: number }, vectors: number[][]) =>
        database.db
          .insert(entities)
          .values(vectors.map((nameEmbedding, i) => ({ ...scope, name: `Name ${i}`, normalizedName: `name ${i}`, nameEmbedding })))
          .returning({ id: entities.id, normalizedName: entities.normalizedName });
      const own = await insert({ tenantId, graphId }, moved);
      await insert(other, scattered);
      const idOf = (i: number) => own.find((row) => row.normalizedName === `name ${i}`)!.id;
      const asked = [7, 42, 79].map((i) => scattered[i]);
      const writes = new GraphWritesRepository();
      const search = (exactUpTo: number) =>
        database.db.transaction(async (tx) => {
          const found = await writes.nearestEntitiesByName(tx, tenantId, graphId, asked, { exactUpTo });
          // The rest of the transaction plans as usual.
          const [{ sort }] = await queryRows<{ sort: string }>(tx, sql`SELECT current_setting('enable_sort') AS sort`);
          expect(sort).toBe('on');
          return found;
        });

      const exact = await search(1000);
      const indexed = await search(10);
      for (const found of [exact, indexed]) {
        expect(found.map((hit) => hit?.id)).toEqual([idOf(7), idOf(42), idOf(79)]);
        found.forEach((hit) => expect(hit!.similarity).toBeGreaterThan(0.99));
      }
      expect(await writes.nearestEntitiesByName(database.db, other.tenantId, other.graphId + 1000, asked)).toEqual([
        undefined,
        undefined,
        undefined,
      ]);

      const plan = await database.db.transaction(async (tx) => {
        await tx.execute(nameIndexSearchSettingsSql());
        return queryRows<Record<string, string>>(tx, sql`EXPLAIN ${nearestByNameThroughIndexSql(tenantId, graphId, asked)}`);
      });
      expect(plan.map((row) => Object.values(row).join(' ')).join('\n')).toContain('entities_name_embedding_hnsw');
    });
  });

  describe('question counts (the daily quota on record)', () => {
    it('counts concurrent additions each once, per tenant and day, and gives back never below 0', async () => {
      const { tenantId } = await createTenantWithGraph();
      const { tenantId: otherTenant } = await createTenantWithGraph();
      const questions = new QuestionCountsRepository(database);
      await expect(questions.count(tenantId, '2031-01-02')).resolves.toBe(0);
      await Promise.all(Array.from({ length: 5 }, () => questions.add(tenantId, '2031-01-02')));
      await questions.add(tenantId, '2031-01-03');
      await questions.giveBack(tenantId, '2031-01-02');
      await expect(questions.count(tenantId, '2031-01-02')).resolves.toBe(4);
      await expect(questions.count(tenantId, '2031-01-03')).resolves.toBe(1);
      await expect(questions.count(otherTenant, '2031-01-02')).resolves.toBe(0);
      for (let i = 0; i < 3; i++) await questions.giveBack(tenantId, '2031-01-03');
      await questions.giveBack(otherTenant, '2031-01-02'); // nothing on record: nothing to give back
      await expect(questions.count(tenantId, '2031-01-03')).resolves.toBe(0);
      await expect(questions.count(otherTenant, '2031-01-02')).resolves.toBe(0);
    });
  });

  describe('graph rows', () => {
    it('merges into an entity in place (HOT, no index entry) unless its vector changes', async () => {
      const { tenantId, graphId } = await createTenantWithGraph();
      const writes = new GraphWritesRepository();
      const [{ id }] = await writes.insertEntities(database.db, [
        { tenantId, graphId, name: 'Acme', normalizedName: 'acme', embedding: unitVectorAt(10, 1), nameEmbedding: unitVectorAt(20, 2), embeddingModel: 'm' },
      ]);
      // The session's not yet reported counts of updated and HOT-updated entity rows (they may
      // include earlier transactions', so each update is measured as a difference).
      const counts = async (tx: Db) => {
        const [row] = await queryRows<{ updated: number; hot: number }>(
          tx,
          sql`SELECT pg_stat_get_xact_tuples_updated('entities'::regclass)::int AS updated,
                     pg_stat_get_xact_tuples_hot_updated('entities'::regclass)::int AS hot`,
        );
        return [Number(row.updated), Number(row.hot)];
      };
      const vectors = async () =>
        (
          await queryRows<{ embedding: string; name_embedding: string; description: string }>(
            database.db,
            sql`SELECT embedding::text AS embedding, name_embedding::text AS name_embedding, description FROM entities WHERE tenant_id = ${tenantId} AND id = ${id}`,
          )
        )[0];
      const before = await vectors();

      const afterMerge = await database.db.transaction(async (tx) => {
        const [updated, hot] = await counts(tx);
        await writes.updateEntities(tx, tenantId, [{ id, description: 'A company.', type: 'organization' }]);
        const [updatedAfter, hotAfter] = await counts(tx);
        return [updatedAfter - updated, hotAfter - hot];
      });
      expect(afterMerge).toEqual([1, 1]);
      const merged = await vectors();
      expect(merged).toEqual({ ...before, description: 'A company.' });

      const afterNewVector = await database.db.transaction(async (tx) => {
        const [updated, hot] = await counts(tx);
        await writes.updateEntities(tx, tenantId, [
          { id, description: 'A company.', type: 'organization', embedding: unitVectorAt(30, 3) },
        ]);
        const [updatedAfter, hotAfter] = await counts(tx);
        return [updatedAfter - updated, hotAfter - hot];
      });
      // A new vector is a new HNSW entry: that update cannot be HOT.
      expect(afterNewVector).toEqual([1, 0]);
      const rewritten = await vectors();
      expect(rewritten.name_embedding).toBe(before.name_embedding);
      expect(rewritten.embedding).not.toBe(before.embedding);
    });

    it('keeps a superseded edge but excludes it from live-edge reads', async () => {
      const { tenantId, graphId } = await createTenantWithGraph();
      const alice = await createEntity(tenantId, graphId, 'Alice');
      const acme = await createEntity(tenantId, graphId, 'Acme');
      const globex = await createEntity(tenantId, graphId, 'Globex');
      const edge = { tenantId, graphId, sourceId: alice, relation: 'works_at' };
      const [superseded] = await database.db
        .insert(edges)
        .values({ ...edge, targetId: acme, validAt: new Date('2020-01-01'), invalidAt: new Date('2023-06-30'), expiredAt: new Date() })
        .returning({ id: edges.id });
      const [live] = await database.db
        .insert(edges)
        .values({ ...edge, targetId: globex, validAt: new Date('2023-07-01') })
        .returning({ id: edges.id });

      const all = await queryRows<{ id: number | string }>(
        database.db,
        sql`SELECT id FROM edges WHERE tenant_id = ${tenantId} AND source_id = ${alice} ORDER BY id`,
      );
      expect(all.map((row) => Number(row.id))).toEqual([superseded.id, live.id]);
      const current = await queryRows<{ id: number | string }>(
        database.db,
        sql`SELECT id FROM edges WHERE tenant_id = ${tenantId} AND source_id = ${alice} AND expired_at IS NULL`,
      );
      expect(current.map((row) => Number(row.id))).toEqual([live.id]);
    });

    it.each(['sourceId', 'targetId'] as const)(
      "rejects an edge whose %s names another tenant's entity (composite foreign key)",
      async (end) => {
        const mine = await createTenantWithGraph();
        const theirs = await createTenantWithGraph();
        const ownEntity = await createEntity(mine.tenantId, mine.graphId, 'Mine');
        const foreignEntity = await createEntity(theirs.tenantId, theirs.graphId, 'Theirs');
        const ends = { sourceId: ownEntity, targetId: ownEntity, [end]: foreignEntity };

        const code = await failureCode(
          database.db.insert(edges).values({ tenantId: mine.tenantId, graphId: mine.graphId, relation: 'knows', ...ends }),
        );
        expect(code).toBe('23503');
      },
    );

    it('allows one default graph per tenant (graphs_identity_key, NULLS NOT DISTINCT)', async () => {
      const { tenantId } = await createTenantWithGraph();
      // gb_user_id is NULL on default graphs; NULLS NOT DISTINCT makes two NULLs collide.
      const code = await failureCode(database.db.insert(graphs).values({ tenantId, kind: 'default', name: 'default' }));
      expect(code).toBe('23505');

      // Another tenant's default graph, and this tenant's gb graphs, are separate identities.
      const other = await createTenantWithGraph();
      expect(other.tenantId).not.toBe(tenantId);
      await database.db.insert(graphs).values({ tenantId, kind: 'gb', gbUserId: 'user-1', name: 'main' });
      const duplicateGb = await failureCode(
        database.db.insert(graphs).values({ tenantId, kind: 'gb', gbUserId: 'user-1', name: 'main' }),
      );
      expect(duplicateGb).toBe('23505');
    });
  });
});
