import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { Database, EMBEDDING_DIMENSIONS, findMigrationsFolder, PgliteDatabase, PostgresDatabase, queryRows, storedVectorType } from '@loci/db';
import { createEmptyPostgresDatabase } from '@loci/testing';

/**
 * Migration 0012 converts a store's existing vectors to halfvec, and 0020 the embedded store's on
 * to single precision (`vector`, the same half-precision values): a store migrated up to 0011
 * with vectors in it comes out of the real migrations with the same vectors (to half precision),
 * in columns of the store's type, the same nearest-neighbour order, and HNSW indexes that answer
 * the search. On whichever store the environment selects (DATABASE_URL → PostgreSQL, otherwise
 * PGlite).
 */

const onPostgres = Boolean(process.env.DATABASE_URL);
const migrationsFolder = findMigrationsFolder();
const LAST_BEFORE_HALFVEC = '0011_accounts_lifecycle';

/** A copy of the migrations folder that ends at `lastTag` (drizzle reads only the journal and the SQL). */
function migrationsUpTo(lastTag: string): { folder: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'loci-migrations-'));
  const folder = join(root, 'migrations');
  mkdirSync(join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string }>;
  };
  const end = journal.entries.findIndex((entry) => entry.tag === lastTag);
  if (end < 0) throw new Error(`no migration ${lastTag}`);
  journal.entries = journal.entries.slice(0, end + 1);
  for (const { tag } of journal.entries) copyFileSync(join(migrationsFolder, `${tag}.sql`), join(folder, `${tag}.sql`));
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  return { folder, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A unit vector `degrees` from the first axis towards axis `towards`: cosine to the first axis is cos(degrees). */
function unitVectorAt(degrees: number, towards: number): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  vector[0] = Math.cos((degrees * Math.PI) / 180);
  vector[towards] = Math.sin((degrees * Math.PI) / 180);
  return vector;
}

const literal = (vector: number[]) => `[${vector.join(',')}]`;

describe(`migrations 0012 and 0020: vectors to halfvec, and to vector on the embedded store (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let drop: () => Promise<void> = async () => undefined;
  let older: { folder: string; remove: () => void };
  const angles = [70, 10, 40]; // inserted out of order

  beforeAll(async () => {
    if (onPostgres) {
      const empty = await createEmptyPostgresDatabase(process.env.DATABASE_URL!);
      database = PostgresDatabase.connect(empty.url, 2);
      drop = empty.drop;
    } else {
      database = await PgliteDatabase.open();
    }
    older = migrationsUpTo(LAST_BEFORE_HALFVEC);
    await database.migrate(older.folder);

    const run = (statement: ReturnType<typeof sql>) => database.db.execute(statement);
    await run(sql`INSERT INTO tenants (id, name) VALUES ('00000000-0000-4000-8000-000000000012', 'before halfvec')`);
    await run(sql`INSERT INTO graphs (tenant_id, kind, name) VALUES ('00000000-0000-4000-8000-000000000012', 'default', 'default')`);
    for (const [i, degrees] of angles.entries()) {
      const v = literal(unitVectorAt(degrees, i + 1));
      await run(sql`INSERT INTO entities (tenant_id, graph_id, name, normalized_name, embedding, name_embedding, embedding_model)
        SELECT tenant_id, id, ${`E${degrees}`}, ${`e${degrees}`}, ${v}::vector, ${v}::vector, 'test' FROM graphs`);
      await run(sql`INSERT INTO documents (tenant_id, graph_id, kind, name, content_hash, text, status)
        SELECT tenant_id, id, 'document', ${`D${degrees}`}, ${`h${degrees}`}, 'text', 'processed' FROM graphs`);
      await run(sql`INSERT INTO chunks (tenant_id, graph_id, document_id, index, text, token_count, embedding, summary_embedding)
        SELECT d.tenant_id, d.graph_id, d.id, 0, 'text', 1, ${v}::vector, ${v}::vector FROM documents d WHERE d.name = ${`D${degrees}`}`);
    }
    await run(sql`INSERT INTO edges (tenant_id, graph_id, source_id, target_id, relation, embedding)
      SELECT s.tenant_id, s.graph_id, s.id, t.id, 'knows', s.embedding FROM entities s JOIN entities t ON t.name = 'E10' AND s.id <> t.id`);

    await database.migrate(migrationsFolder);
  });

  afterAll(async () => {
    await database?.close();
    await drop();
    older?.remove();
  });

  it("makes every vector column the store's type at 1024 (halfvec; vector on PGlite), keeping the vector of each row to half precision", async () => {
    const columns = await queryRows<{ relname: string; attname: string; type: string }>(
      database.db,
      sql`SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
           WHERE c.relname IN ('chunks', 'entities', 'edges') AND a.attname IN ('embedding', 'summary_embedding', 'name_embedding')`,
    );
    expect(columns).toHaveLength(5);
    expect(columns.filter((column) => column.type !== `${storedVectorType(database.kind)}(${EMBEDDING_DIMENSIONS})`)).toEqual([]);

    const rows = await queryRows<{ name: string; embedding: string; name_embedding: string }>(
      database.db,
      sql`SELECT name, embedding::text AS embedding, name_embedding::text AS name_embedding FROM entities ORDER BY name`,
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const degrees = Number(row.name.slice(1));
      const expected = unitVectorAt(degrees, angles.indexOf(degrees) + 1);
      for (const stored of [row.embedding, row.name_embedding]) {
        const values = JSON.parse(stored) as number[];
        expect(values).toHaveLength(EMBEDDING_DIMENSIONS);
        values.forEach((value, i) => expect(Math.abs(value - expected[i])).toBeLessThan(1e-3));
      }
    }
    const [{ chunks, edges }] = await queryRows<{ chunks: number; edges: number }>(
      database.db,
      sql`SELECT (SELECT count(*)::int FROM chunks WHERE embedding IS NOT NULL AND summary_embedding IS NOT NULL) AS chunks,
                 (SELECT count(*)::int FROM edges WHERE embedding IS NOT NULL) AS edges`,
    );
    expect([Number(chunks), Number(edges)]).toEqual([3, 2]);
  });

  it('keeps the nearest-neighbour order and answers it from the rebuilt HNSW indexes', async () => {
    const query = literal(unitVectorAt(0, 1));
    const nearest = await queryRows<{ name: string }>(
      database.db,
      sql`SELECT name FROM entities ORDER BY embedding <=> ${query}::loci_vector LIMIT 3`,
    );
    expect(nearest.map((row) => row.name)).toEqual(['E10', 'E40', 'E70']);

    const plans = await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      const explain = async (table: string, column: string) =>
        (
          await queryRows<Record<string, string>>(
            tx,
            sql`EXPLAIN SELECT 1 FROM ${sql.raw(table)} ORDER BY ${sql.raw(column)} <=> ${sql.raw(`'${query}'`)}::loci_vector LIMIT 3`,
          )
        )
          .map((row) => Object.values(row).join(' '))
          .join('\n');
      return [
        await explain('entities', 'embedding'),
        await explain('entities', 'name_embedding'),
        await explain('edges', 'embedding'),
        await explain('chunks', 'embedding'),
        await explain('chunks', 'summary_embedding'),
      ];
    });
    ['entities_embedding_hnsw', 'entities_name_embedding_hnsw', 'edges_embedding_hnsw', 'chunks_embedding_hnsw', 'chunks_summary_embedding_hnsw'].forEach(
      (index, i) => expect(plans[i]).toContain(index),
    );
  });
});
