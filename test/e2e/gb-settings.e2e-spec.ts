import { randomUUID } from 'node:crypto';
import { CallContext } from '@loci/llm';
import { GbContext, GbEntity, GbQueryService } from '@loci/retrieval';
import { createGbGraph, createTenant, GbGraphFixture, insertGbEdges, insertGbEntities } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/** Every number of gb-query-contract.md, as the contract states it. */
const CONTRACT = {
  maxTerms: 12,
  minTermLength: 2,
  wholeNameScore: 5,
  termInNameScore: 3,
  termInDescriptionScore: 1,
  keywordSeeds: 10,
  similarEntities: 10,
  similarEdges: 10,
  similarChunks: 5,
  similarSummaries: 5,
  minSimilarity: 0.75,
  fallbackSeeds: 25,
  maxExpandedEdges: 100,
  passagesWithText: 3,
  passagesSummaryOnly: 5,
  maxOutputTokens: 2048,
  // Not the contract's: BM25's chunks beside its vector matches for the passages (docs/decisions/0040-gb-query.md).
  lexicalChunks: 8,
};

/** The environment setting of each field: `LOCI_GB_` + the field in upper snake case. */
const envName = (field: string) => `LOCI_GB_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

describe('gb query settings', () => {
  it("use the contract's numbers by default", async () => {
    const t = await startTestApp();
    try {
      expect(t.app.get(GbQueryService).settings).toEqual(CONTRACT);
    } finally {
      await t.close();
    }
  });

  it('take every number from its LOCI_GB_* setting', async () => {
    // A distinct value for each, none of them the contract's.
    const changed = Object.fromEntries(
      Object.entries(CONTRACT).map(([field, value], i) => [field, field === 'minSimilarity' ? 0.6 : value + 1 + i]),
    ) as typeof CONTRACT;
    const t = await startTestApp(Object.fromEntries(Object.entries(changed).map(([field, value]) => [envName(field), String(value)])));
    try {
      expect(t.app.get(GbQueryService).settings).toEqual(changed);
    } finally {
      await t.close();
    }
  });

  describe('changed values take effect in retrieval', () => {
    let t: TestApp;
    let tenantId: string;

    beforeAll(async () => {
      t = await startTestApp({
        LOCI_GB_KEYWORD_SEEDS: '2',
        LOCI_GB_TERM_IN_DESCRIPTION_SCORE: '10',
        LOCI_GB_FALLBACK_SEEDS: '3',
        LOCI_GB_MAX_EXPANDED_EDGES: '2',
      });
      tenantId = (await createTenant(t.app)).id;
    });
    afterAll(() => t.close());

    const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute));

    async function retrieve(g: GbGraphFixture, question: string) {
      let keywordSeeds: GbEntity[] = [];
      const ctx = new CallContext(tenantId, `settings-${randomUUID()}`, 'query');
      const context: GbContext = await t.app.get(GbQueryService).retrieve(ctx, g.scope, question, async (name, work) => {
        const value = await work();
        if (name === 'keyword_seeds') keywordSeeds = value as GbEntity[];
        return value;
      });
      return { context, keywordSeeds };
    }

    it('keyword seeds: a description match outweighs a name match (10 > 3), and only 2 are taken', async () => {
      const g = await createGbGraph(t.app, tenantId, 'scores');
      await insertGbEntities(t.app, g, [
        { name: 'Rust Guild', updatedAt: at(1) }, // 3 (contract: 3, a seed)
        { name: 'Rustacean', updatedAt: at(2) }, // 3 (contract: 3, a seed)
        { name: 'Bob', description: 'writes rust', updatedAt: at(3) }, // 10 (contract: 1)
        { name: 'Carol', description: 'teaches rust', updatedAt: at(4) }, // 10 (contract: 1)
      ]);
      const { keywordSeeds } = await retrieve(g, 'rust?');
      // With the contract's numbers: Rustacean, Rust Guild, Carol, Bob.
      expect(keywordSeeds.map((e) => [e.name, e.score])).toEqual([
        ['Carol', 10],
        ['Bob', 10],
      ]);
    });

    it('fallback: the 3 most recently updated entities; one hop: the 2 newest live edges', async () => {
      const g = await createGbGraph(t.app, tenantId, 'fallback');
      const rows = await insertGbEntities(
        t.app,
        g,
        ['Anna', 'Boris', 'Chen', 'Dara', 'Emil', 'Fay'].map((name, i) => ({ name, updatedAt: at(10 + ((i * 5) % 6)) })),
      );
      const newest = [...rows].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(0, 3);
      const [hub] = newest;
      const others = rows.filter((row) => row.id !== hub.id);
      const edges = await insertGbEdges(
        t.app,
        g,
        others.map((other, i) => ({ sourceId: hub.id, targetId: other.id, relation: 'knows', createdAt: at(30 + ((i * 3) % 5)) })),
      );
      const { context, keywordSeeds } = await retrieve(g, 'What do you know?');
      expect(keywordSeeds).toEqual([]);
      const newestEdges = [...edges].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).slice(0, 2);
      expect(context.edges.map((e) => e.id)).toEqual(newestEdges.map((e) => e.id));
      const expected = new Set([...newest.map((e) => e.id), ...newestEdges.map((e) => e.targetId)]);
      expect(context.entities.map((e) => e.id).sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
    });
  });
});
