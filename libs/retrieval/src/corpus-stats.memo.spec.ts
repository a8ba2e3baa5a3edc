import { CORPUS_STATS_TTL_MS, CorpusStatsMemo, REMEMBER_CORPUS_FROM_CHUNKS } from './corpus-stats.memo';

describe('CorpusStatsMemo', () => {
  const scope = { tenantId: 't', graphId: 1 };
  const large = { chunks: REMEMBER_CORPUS_FROM_CHUNKS, meanLength: 80 };

  it('remembers a large graph\'s stats for a while, then forgets them', () => {
    let now = 0;
    const memo = new CorpusStatsMemo(() => now);
    memo.remember(scope, large);
    expect(memo.get(scope)).toEqual(large);
    expect(memo.get({ ...scope, graphId: 2 })).toBeUndefined();
    now = CORPUS_STATS_TTL_MS + 1;
    expect(memo.get(scope)).toBeUndefined();
  });

  it('never remembers a small graph: its stats are counted afresh', () => {
    const memo = new CorpusStatsMemo();
    memo.remember(scope, { chunks: REMEMBER_CORPUS_FROM_CHUNKS - 1, meanLength: 80 });
    expect(memo.get(scope)).toBeUndefined();
  });
});
