import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import {
  chunkLexicalText,
  chunkTerms,
  Database,
  documents,
  DocumentsRepository,
  findMigrationsFolder,
  graphs,
  GraphWritesRepository,
  openDatabase,
  queryRows,
  tenants,
} from '@loci/db';
import { normalizeEntityName } from '@loci/common';
import { countTokens } from '@loci/llm';
import { LocalHashingEmbedder } from '../../libs/llm/src/local/hashing.embedder';
import { RetrievalRepository, RetrievalService } from '@loci/retrieval';
import { candidateNames } from '../../libs/retrieval/src/question-names';
import { chunkLexicalSearchSql } from '../../libs/retrieval/src/lexical.queries';
import { createTestEnvironment, TestEnvironment } from '@loci/testing';

/**
 * BM25 over chunks (chunk_terms) on the real store, PGlite or PostgreSQL: chunks are written
 * through the ingestion write path, so what is indexed is what ingestion indexes.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
const embedder = new LocalHashingEmbedder();

describe(`lexical search contract (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let environment: TestEnvironment;
  let database: Database;
  let repository: RetrievalRepository;
  let retrieval: RetrievalService;
  const writes = new GraphWritesRepository();

  beforeAll(async () => {
    environment = await createTestEnvironment();
    database = await openDatabase(environment.settings);
    await database.migrate(findMigrationsFolder());
    repository = new RetrievalRepository(database);
    retrieval = new RetrievalService(database);
  });

  afterAll(async () => {
    await database?.close();
    await environment?.cleanup();
  });

  async function createGraph() {
    const [tenant] = await database.db.insert(tenants).values({ name: `lexical ${randomUUID()}` }).returning();
    const [graph] = await database.db.insert(graphs).values({ tenantId: tenant.id, kind: 'default', name: 'default' }).returning();
    return { tenantId: tenant.id, graphId: graph.id };
  }

  /** A document with one chunk, written as upload and ingestion write them. */
  async function addPassage(scope: { tenantId: string; graphId: number }, name: string, text: string, status: 'processed' | 'processing' = 'processed') {
    const { document: created } = await new DocumentsRepository(database).createOrGet({
      ...scope,
      kind: 'document',
      name,
      mimeType: 'text/plain',
      contentHash: randomUUID(),
      text,
    });
    const [document] = await database.db
      .update(documents)
      .set({ status })
      .where(and(eq(documents.tenantId, scope.tenantId), eq(documents.id, created.id)))
      .returning();
    const chunk = await writes.insertChunk(
      database.db,
      {
        ...scope,
        documentId: document.id,
        index: 0,
        text,
        tokenCount: countTokens(text),
        embedding: embedder.embedText(text),
        embeddingModel: 'local:test',
      },
      chunkLexicalText(document, text),
    );
    return { documentId: document.id, chunkId: chunk.id, termCount: chunk.termCount };
  }

  const names = (hits: Array<{ documentName: string }>) => hits.map((h) => h.documentName);

  it('indexes a chunk under its document name and text, stemmed, and counts its length', async () => {
    const scope = await createGraph();
    const { chunkId, termCount } = await addPassage(scope, 'Ed Wood', 'He was an American filmmaker, running a studio.');
    const rows = await database.db
      .select({ lexeme: chunkTerms.lexeme, frequency: chunkTerms.frequency, chunkLength: chunkTerms.chunkLength })
      .from(chunkTerms)
      .where(and(eq(chunkTerms.tenantId, scope.tenantId), eq(chunkTerms.chunkId, chunkId)));
    const lexemes = rows.map((r) => r.lexeme).sort();
    expect(lexemes).toEqual(expect.arrayContaining(['ed', 'wood', 'american', 'filmmak', 'run', 'studio']));
    expect(lexemes).not.toContain('he'); // a stop word
    expect(termCount).toBe(rows.reduce((sum, r) => sum + r.frequency, 0));
    expect(rows.every((r) => r.chunkLength === termCount)).toBe(true);
  });

  it('ranks by BM25: a rare shared term outweighs a common one, and stems match', async () => {
    const scope = await createGraph();
    for (let i = 0; i < 8; i++) await addPassage(scope, `Film ${i}`, `A film released in ${1990 + i}, about a city.`);
    await addPassage(scope, 'Scott Derrickson', 'Scott Derrickson is an American director of horror films.');
    await addPassage(scope, 'Nosferatu', 'A silent film about a vampire.');
    const hits = await repository.searchChunksLexically(scope, 'Which films did Derrickson direct?', 20);
    expect(hits[0].documentName).toBe('Scott Derrickson');
    expect(hits[0].lexicalScore).toBeGreaterThan(hits[1].lexicalScore!);
    // "films" and "film" share a lexeme: the film passages match too, below the rare name.
    expect(names(hits).slice(1).sort()).toEqual(['Film 0', 'Film 1', 'Film 2', 'Film 3', 'Film 4', 'Film 5', 'Film 6', 'Film 7', 'Nosferatu']);
  });

  it('favours the shorter of two passages with the same matches (length normalisation)', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Long', `The lighthouse keeper. ${'Waves broke on distant rocks all through the winter night. '.repeat(12)}`);
    await addPassage(scope, 'Short', 'The lighthouse keeper slept.');
    const hits = await repository.searchChunksLexically(scope, 'lighthouse keeper', 2);
    expect(names(hits)).toEqual(['Short', 'Long']);
  });

  it('never returns another tenant\'s chunks nor chunks of documents not processed', async () => {
    const mine = await createGraph();
    const theirs = await createGraph();
    await addPassage(theirs, 'Secret', 'The zanzibar protocol was signed at midnight.');
    await addPassage(mine, 'Draft', 'The zanzibar protocol draft is still being written.', 'processing');
    await addPassage(mine, 'Notes', 'Meeting notes about lunch.');
    expect(await repository.searchChunksLexically(mine, 'zanzibar protocol', 10)).toEqual([]);
    expect(names(await repository.searchChunksLexically(theirs, 'zanzibar protocol', 10))).toEqual(['Secret']);
  });

  it('finds nothing for a question of stop words only, and drops postings with their document', async () => {
    const scope = await createGraph();
    const { documentId, chunkId } = await addPassage(scope, 'Quokka', 'The quokka lives on Rottnest Island.');
    expect(await repository.searchChunksLexically(scope, 'what is the', 5)).toEqual([]);
    await database.db.delete(documents).where(and(eq(documents.tenantId, scope.tenantId), eq(documents.id, documentId)));
    const left = await database.db.select().from(chunkTerms).where(and(eq(chunkTerms.tenantId, scope.tenantId), eq(chunkTerms.chunkId, chunkId)));
    expect(left).toEqual([]);
  });

  it('local mode follows a passage to the document it names, which shares no word with the question', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Leland, North Carolina', 'Leland is a town in Brunswick County. Maximum Overdrive was shot in Leland in 1986.');
    await addPassage(scope, 'Maximum Overdrive (film)', 'A horror picture written and directed by Stephen King, with Emilio Estevez.');
    for (let i = 0; i < 4; i++) await addPassage(scope, `Town ${i}`, `Town number ${i} has a harbour and a school.`);
    const question = 'Who made the movie that was shot in Leland?';
    const lexical = await repository.searchChunksLexically(scope, question, 10);
    expect(names(lexical)).not.toContain('Maximum Overdrive (film)');
    const context = await retrieval.retrieve({ ...scope, mode: 'local', questionText: question, budgets: { chunkTokens: 100_000 } });
    expect(names(context.chunks).slice(0, 2)).toEqual(['Leland, North Carolina', 'Maximum Overdrive (film)']);
  });

  it('local mode follows a passage to an entity whose name it spells out, then to the chunk that mentions it', async () => {
    const scope = await createGraph();
    const seed = await addPassage(scope, 'Zorvex Prize', 'The Zorvex Prize of 2003 went to Hana Ito for her survey of tidal mills.');
    // Shares no word with the question; reached only through the entity the seed passage names.
    const second = await addPassage(scope, 'Notebook 7', 'Raised in Sendai, she studied engineering in Kyoto.');
    for (let i = 0; i < 4; i++) await addPassage(scope, `Mill ${i}`, `Mill number ${i} grinds grain beside a river.`);
    const [hana] = await writes.insertEntities(database.db, [
      { ...scope, name: 'Hana Ito', normalizedName: normalizeEntityName('Hana Ito'), type: 'person', description: null },
    ]);
    await writes.addProvenance(database.db, scope.tenantId, { documentId: second.documentId, chunkId: second.chunkId, entityIds: [hana.id], edgeIds: [] });
    const question = 'Where did the winner of the Zorvex Prize grow up?';
    expect(names(await repository.searchChunksLexically(scope, question, 10))).not.toContain('Notebook 7');
    const context = await retrieval.retrieve({ ...scope, mode: 'local', questionText: question, budgets: { chunkTokens: 100_000 } });
    expect(context.chunks.map((c) => c.chunkId).slice(0, 2)).toEqual([seed.chunkId, second.chunkId]);
  });

  it('naive and mix put first a document the question names, above a passage that only shares its words', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Ada Lovelace', 'An English mathematician, remembered for a program for a calculating machine.');
    await addPassage(scope, 'Engine programs', 'A famous engine program was written that year: the program ran on the engine.');
    // Names of stop words alone name nothing, though every question spells them out.
    await addPassage(scope, 'What', 'A famous word.');
    for (let i = 0; i < 4; i++) await addPassage(scope, `Machine ${i}`, `Machine number ${i} was built in a workshop.`);
    const question = 'What year was the famous program Ada Lovelace wrote for the engine?';
    const lexical = await repository.searchChunksLexically(scope, question, 10);
    expect(names(lexical)[0]).toBe('Engine programs');
    expect(names((await repository.searchPassages(scope, question, 10, candidateNames(question))).named)).toEqual(['Ada Lovelace']);
    for (const mode of ['naive', 'mix'] as const) {
      const context = await retrieval.retrieve({ ...scope, mode, questionText: question, budgets: { chunkTokens: 100_000 } });
      expect(names(context.chunks).slice(0, 2)).toEqual(['Ada Lovelace', 'Engine programs']);
    }
  });

  it('mix ranks second the document the best passage names, which BM25 ranks below passages sharing a word of the question', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Leland, North Carolina', 'Leland is a town in Brunswick County. Maximum Overdrive was shot in Leland in 1986.');
    await addPassage(scope, 'Maximum Overdrive (film)', 'A horror picture written and directed by Stephen King, with Emilio Estevez.');
    for (let i = 0; i < 4; i++) await addPassage(scope, `Film ${i}`, `Film number ${i} was shot in a studio.`);
    const question = 'Who made the movie that was shot in Leland?';
    const lexicalHits = await repository.searchChunksLexically(scope, question, 10);
    const lexical = names(lexicalHits);
    expect(lexical[0]).toBe('Leland, North Carolina');
    expect(lexical.slice(0, 2)).not.toContain('Maximum Overdrive (film)');
    const context = await retrieval.retrieve({ ...scope, mode: 'mix', questionText: question, budgets: { chunkTokens: 100_000 } });
    expect(names(context.chunks).slice(0, 2)).toEqual(['Leland, North Carolina', 'Maximum Overdrive (film)']);
    // naive ranks by BM25 and names only: it does not follow links.
    const naive = await retrieval.retrieve({ ...scope, mode: 'naive', questionText: question, budgets: { chunkTokens: 100_000 } });
    expect(names(naive.chunks).slice(0, 2)).not.toContain('Maximum Overdrive (film)');
  });

  it('naive mode fuses BM25 with the vector search and returns the BM25 match first', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Kiribati', 'Tarawa is the capital of Kiribati, an island nation in the Pacific.');
    for (let i = 0; i < 5; i++) await addPassage(scope, `Capital ${i}`, `What is the capital of country number ${i}? Nobody knows the capital.`);
    const question = 'What is the capital of Kiribati?';
    const context = await retrieval.retrieve({
      ...scope,
      mode: 'naive',
      questionText: question,
      questionVector: embedder.embedText(question),
      budgets: { chunkTokens: 100_000 },
    });
    expect(context.chunks[0].documentName).toBe('Kiribati');
    expect(context.chunks[0].lexicalScore).toBeGreaterThan(0);
  });

  it('reads at most the cut of a word\'s postings, its best by frequency and length, with the word\'s IDF over all of them', async () => {
    const scope = await createGraph();
    // Written worst first, so the key's order (chunk ids) is not the order of impact.
    await addPassage(scope, 'Delta', `The lighthouse. ${'Waves broke on distant rocks all through the winter night. '.repeat(4)}`);
    await addPassage(scope, 'Gamma', 'A lighthouse stands.');
    await addPassage(scope, 'Beta', 'The lighthouse keeper and the lighthouse.');
    await addPassage(scope, 'Alpha', 'Lighthouse, lighthouse, lighthouse on the cliff.');
    await addPassage(scope, 'Epsilon', 'Ships passed the old harbour wall at dawn.');
    const whole = await new RetrievalRepository(database, { bm25PostingsPerTerm: 100 }).searchChunksLexically(scope, 'lighthouse', 10);
    expect(names(whole)).toEqual(['Alpha', 'Beta', 'Gamma', 'Delta']);
    const cut = await new RetrievalRepository(database, { bm25PostingsPerTerm: 2 }).searchChunksLexically(scope, 'lighthouse', 10);
    expect(names(cut)).toEqual(['Alpha', 'Beta']);
    // The document frequency is counted over every posting (4 of 5 chunks), not over the 2 read.
    expect(cut.map((h) => h.lexicalScore)).toEqual(whole.slice(0, 2).map((h) => h.lexicalScore));
    // A word in fewer chunks than the cut is read whole: the rare word's chunk comes back.
    const mixed = await new RetrievalRepository(database, { bm25PostingsPerTerm: 2 }).searchChunksLexically(scope, 'lighthouse keeper harbour', 10);
    expect(names(mixed)).toEqual(expect.arrayContaining(['Alpha', 'Beta', 'Epsilon']));
    expect(names(mixed)).not.toContain('Delta');
  });

  (onPostgres ? it : it.skip)('counts and scores a question\'s postings from index entries alone, each word\'s best in the impact index\'s order', async () => {
    const scope = await createGraph();
    await addPassage(scope, 'Nile', 'The Nile flows north through Egypt to the Mediterranean.');
    await addPassage(scope, 'Danube', 'The Danube flows east through Vienna to the Black Sea.');
    await database.db.execute(sql`VACUUM chunk_terms`);
    // Sequential and bitmap reads of a table this small are cheaper; turned off, the planner
    // shows whether the indexes alone can answer (index-only) or each posting costs a heap fetch.
    const plan = await database.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_seqscan = off`);
      await tx.execute(sql`SET LOCAL enable_bitmapscan = off`);
      const rows = await queryRows<Record<string, string>>(tx, sql`EXPLAIN (ANALYZE) ${chunkLexicalSearchSql(scope, 'Which river flows north?', 5)}`);
      return rows.map((row) => Object.values(row)[0]).join('\n');
    });
    // Read in the index's order, the LIMIT needs no sort of the word's postings; counting and
    // scoring read index entries only (INCLUDE frequency and chunk length), never the table.
    expect(plan).toMatch(/Limit[^\n]*\n\s*->\s+Index Only Scan using chunk_terms_impact_idx on chunk_terms q/);
    const reads = plan.match(/\S+ Scan[^\n]* on chunk_terms \w+/g) ?? [];
    expect(reads.length).toBeGreaterThanOrEqual(2);
    expect(reads.filter((read) => !read.startsWith('Only Scan'))).toEqual([]);
  });
});
