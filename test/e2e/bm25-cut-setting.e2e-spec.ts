import { randomUUID } from 'node:crypto';
import { Database, DATABASE, GraphWritesRepository } from '@loci/db';
import { CallContext } from '@loci/llm';
import { GbQueryService, RetrievalService } from '@loci/retrieval';
import { createGbGraph, createTenant, recordStatements } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * LOCI_BM25_POSTINGS_PER_TERM (BM25's cut, libs/retrieval lexical.queries.ts) is one setting for
 * both surfaces: the app's /v1/query retrieval and its gb query read at most that many of a
 * question word's postings. The cut's ranking is tested on both stores in the lexical-search
 * contract suite; this checks that the setting reaches both services through the app.
 */
describe('BM25 cut setting', () => {
  let t: TestApp;
  let tenantId: string;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_BM25_POSTINGS_PER_TERM: '2' });
    tenantId = (await createTenant(t.app)).id;
  });
  afterAll(() => t.close());

  const texts = [
    `The lighthouse. ${'Waves broke on distant rocks all through the winter night. '.repeat(4)}`,
    'A lighthouse stands.',
    'The lighthouse keeper and the lighthouse.',
    'Lighthouse, lighthouse, lighthouse on the cliff.',
  ];

  async function graphWithPassages(userId: string) {
    const g = await createGbGraph(t.app, tenantId, userId);
    const writes = t.app.get(GraphWritesRepository);
    const ids: number[] = [];
    for (const [index, text] of texts.entries()) {
      const chunk = await writes.insertChunk(
        t.app.get<Database>(DATABASE).db,
        { tenantId, graphId: g.graphId, documentId: g.documentId, index, text, tokenCount: 20 },
        text,
      );
      ids.push(chunk.id);
    }
    return { g, ids };
  }

  /** The BM25 statements `work` sends. */
  async function lexicalStatements(work: () => Promise<unknown>): Promise<string[]> {
    const recorder = recordStatements(t.app);
    try {
      await work();
      return recorder.texts.filter((text) => text.includes('corpus AS MATERIALIZED') && text.includes('chunk_terms q'));
    } finally {
      recorder.stop();
    }
  }

  it('/v1/query retrieval scores at most the cut of a word\'s postings, its best', async () => {
    const { g, ids } = await graphWithPassages('v1');
    let chunkIds: string[] = [];
    const statements = await lexicalStatements(async () => {
      const context = await t.app.get(RetrievalService).retrieve({
        tenantId,
        graphId: g.graphId,
        mode: 'naive',
        questionText: 'lighthouse',
        embeddingModel: 'local:none',
      });
      chunkIds = context.chunks.map((chunk) => String(chunk.chunkId));
    });
    expect(statements.length).toBeGreaterThanOrEqual(1);
    expect(statements.every((text) => /\bLIMIT 2\) p\b/.test(text))).toBe(true);
    // Of the four passages, the two with the densest "lighthouse" (written last).
    expect(chunkIds.sort()).toEqual([String(ids[2]), String(ids[3])].sort());
  });

  it('gb query\'s BM25 passages read the same cut', async () => {
    const { g } = await graphWithPassages('gb');
    const service = t.app.get(GbQueryService);
    const statements = await lexicalStatements(() =>
      service.retrieve(new CallContext(tenantId, `retrieve-${randomUUID()}`, 'query'), g.scope, 'lighthouse', (_name, work) => work()),
    );
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/\bLIMIT 2\) p\b/);
  });
});
