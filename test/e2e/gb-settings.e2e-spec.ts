import { GbQueryService } from '@loci/retrieval';
import { startTestApp } from '@loci/testing';

describe('gb query settings', () => {
  it("use the contract's numbers by default", async () => {
    const t = await startTestApp();
    try {
      expect(t.app.get(GbQueryService).settings).toMatchObject({ minSimilarity: 0.75, maxExpandedEdges: 100, keywordSeeds: 10 });
    } finally {
      await t.close();
    }
  });

  it('take the threshold and the one-hop cap from the environment', async () => {
    const t = await startTestApp({ LOCI_GB_MIN_SIMILARITY: '0.6', LOCI_GB_MAX_EXPANDED_EDGES: '40' });
    try {
      expect(t.app.get(GbQueryService).settings).toMatchObject({ minSimilarity: 0.6, maxExpandedEdges: 40 });
    } finally {
      await t.close();
    }
  });
});
