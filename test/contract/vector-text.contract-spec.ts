import { sql } from 'drizzle-orm';
import { integer, PgDialect, pgTable } from 'drizzle-orm/pg-core';
import {
  Database,
  EMBEDDING_DIMENSIONS,
  embeddingColumn,
  findMigrationsFolder,
  HalfvecParam,
  halfvecParam,
  halfvecText,
  PgliteDatabase,
  PostgresDatabase,
  queryRows,
  vectorLiteral,
} from '@loci/db';
import { createFreshPostgresDatabase } from '@loci/testing';

/**
 * The short vector text (halfvecText) gives the store the very halfvec the full JSON text gave:
 * the same bits element by element, so every stored vector and every distance is unchanged; a
 * query vector's parameter (halfvecParam: binary on PostgreSQL, the text on PGlite) gives the
 * same again, and so does a vector written to a column (a halfvec parameter typed by its column).
 * On whichever store the environment selects (DATABASE_URL → PostgreSQL, otherwise
 * PGlite).
 */

const onPostgres = Boolean(process.env.DATABASE_URL);

/** Embedding-like vectors, and the awkward elements: ties, subnormals, tiny values, zeros. */
function vectors(): number[][] {
  const random = Array.from({ length: 20 }, (_, k) =>
    Array.from({ length: EMBEDDING_DIMENSIONS }, () => (Math.random() - 0.5) * 2 ** -(k % 8)),
  );
  const awkward = [1 + 2 ** -11, 1 + 3 * 2 ** -11, 2 ** -24, 2 ** -25, 2 ** -25 + 2 ** -30, 3e-8, -6.1e-5, 0, -0, 0.1, -0.333333, 1e-12, 65504];
  const edge = new Array<number>(EMBEDDING_DIMENSIONS).fill(0).map((_, i) => awkward[i % awkward.length] * (i % 3 === 0 ? -1 : 1));
  return [...random, edge];
}

describe(`halfvecText on the store (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    if (onPostgres) {
      const fresh = await createFreshPostgresDatabase(process.env.DATABASE_URL!);
      database = PostgresDatabase.connect(fresh.url, 2);
      drop = fresh.drop;
    } else {
      database = await PgliteDatabase.open();
      await database.migrate(findMigrationsFolder());
    }
  });

  afterAll(async () => {
    await database?.close();
    await drop();
  });

  it('stores the same halfvec as the full text, and measures the same distances', async () => {
    const all = vectors();
    for (const vector of all) {
      const [row] = await queryRows<{ same: boolean; short: string; full: string }>(
        database.db,
        sql`SELECT (${halfvecText(vector)}::halfvec)::text = (${JSON.stringify(vector)}::halfvec)::text AS same,
                   (${halfvecText(vector)}::halfvec)::text AS short, (${JSON.stringify(vector)}::halfvec)::text AS full`,
      );
      if (!row.same) {
        // Name the first element that differs rather than print two 1024-element vectors.
        const short = row.short.slice(1, -1).split(','), full = row.full.slice(1, -1).split(',');
        const at = short.findIndex((x, i) => x !== full[i]);
        expect({ at, input: vector[at], short: short[at] }).toEqual({ at, input: vector[at], short: full[at] });
      }
      expect(row.same).toBe(true);
    }
    const [a, b] = all;
    const [distances] = await queryRows<{ short: number; full: number }>(
      database.db,
      sql`SELECT ${halfvecText(a)}::halfvec <=> ${halfvecText(b)}::halfvec AS short, ${JSON.stringify(a)}::halfvec <=> ${JSON.stringify(b)}::halfvec AS full`,
    );
    expect(Number(distances.short)).toBe(Number(distances.full));
  });

  // Read as the store's vector type (halfvec; vector on PGlite, where it is sent as its text).
  it("reads a query vector parameter as the same vector as its text, and measures the same distances", async () => {
    const all = vectors();
    for (const vector of all) {
      const [row] = await queryRows<{ same: boolean }>(
        database.db,
        sql`SELECT (${vectorLiteral(vector)})::text = (${halfvecText(vector)}::loci_vector)::text AS same`,
      );
      expect(row.same).toBe(true);
    }
    const [a, b] = all;
    const [distances] = await queryRows<{ param: number; text: number }>(
      database.db,
      sql`SELECT ${vectorLiteral(a)} <=> ${vectorLiteral(b)} AS param, ${halfvecText(a)}::loci_vector <=> ${halfvecText(b)}::loci_vector AS text`,
    );
    expect(Number(distances.param)).toBe(Number(distances.text));
  });

  it('writes a vector column as the same halfvec as its text, several rows a statement', async () => {
    // A table of its own in the test's database: the columns' toDriver is what every graph write uses.
    const probe = pgTable('vector_write_probe', { id: integer('id').notNull(), embedding: embeddingColumn('embedding') });
    await database.db.execute(sql.raw(`CREATE TABLE vector_write_probe (id int NOT NULL, embedding halfvec(${EMBEDDING_DIMENSIONS}))`));
    try {
      const all = vectors();
      const insert = database.db.insert(probe).values(all.map((embedding, id) => ({ id, embedding })));
      const params = insert.toSQL().params;
      expect(params.filter((p) => p instanceof HalfvecParam)).toHaveLength(all.length);
      await insert;
      const rows = await queryRows<{ id: number; same: boolean }>(
        database.db,
        sql`SELECT p.id, p.embedding::text = (w.v::halfvec)::text AS same
            FROM vector_write_probe p JOIN (VALUES ${sql.join(all.map((v, i) => sql`(${i}::int, ${halfvecText(v)}::text)`), sql`, `)}) AS w(id, v) ON w.id = p.id
            ORDER BY p.id`,
      );
      expect(rows.map((r) => [Number(r.id), r.same])).toEqual(all.map((_, i) => [i, true]));
      const [back] = await database.db.select().from(probe).where(sql`id = 0`);
      expect(back.embedding).toHaveLength(EMBEDDING_DIMENSIONS);
    } finally {
      await database.db.execute(sql`DROP TABLE vector_write_probe`);
    }
  });

  // PGlite converts every parameter to text by the type it is cast to (a halfvec's is the
  // vector's text, which the test above reads; a bytea's is its bytes in hex), so the wire
  // format is PostgreSQL's question only.
  (onPostgres ? it : it.skip)('sends a query vector in binary, 2 bytes an element (node-postgres)', async () => {
    // Read as bytea, the parameter's bytes are what the driver put on the wire: binary is 4 + 2
    // bytes an element; text would be the ~8 KB of decimals.
    const vector = vectors()[0];
    const [sent] = new PgDialect().sqlToQuery(vectorLiteral(vector)).params;
    expect(sent).toBe(halfvecParam(vector));
    const [row] = await queryRows<{ bytes: number }>(database.db, sql`SELECT length(${sent}::bytea) AS bytes`);
    expect(Number(row.bytes)).toBe(4 + 2 * EMBEDDING_DIMENSIONS);
    expect(Buffer.byteLength(halfvecText(vector))).toBeGreaterThan(4 * (4 + 2 * EMBEDDING_DIMENSIONS));
  });
});
