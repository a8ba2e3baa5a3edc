import { CORPUS_STATS_TTL_MS, REMEMBER_CORPUS_FROM_CHUNKS } from './corpus-stats.memo';
import { LexemeFrequencyMemo, MAX_FREQUENCIES, MAX_WORDS, wordsOf } from './lexeme-frequencies.memo';

describe('LexemeFrequencyMemo', () => {
  const scope = { tenantId: 't', graphId: 1 };
  const large = REMEMBER_CORPUS_FROM_CHUNKS;
  const learnedOfWorkers = { frequencies: { worker: 40, work: 900 }, words: { workers: ['worker'], working: ['work'], the: [] } };

  it("asks for the words it has not analysed, then gives a large graph's frequencies of the words it has", () => {
    const memo = new LexemeFrequencyMemo();
    expect(memo.known(scope, 'The workers working')).toEqual({ frequencies: {}, unmappedWords: ['the', 'workers', 'working'] });
    memo.learn(scope, large, learnedOfWorkers);
    expect(memo.known(scope, 'Working WORKERS, the rest?')).toEqual({ frequencies: { work: 900, worker: 40 }, unmappedWords: ['rest'] });
  });

  it('keeps frequencies per graph, and for a minute', () => {
    let now = 0;
    const memo = new LexemeFrequencyMemo(() => now);
    memo.learn(scope, large, learnedOfWorkers);
    expect(memo.known({ ...scope, graphId: 2 }, 'workers').frequencies).toEqual({});
    expect(memo.known({ ...scope, tenantId: 'u' }, 'workers').frequencies).toEqual({});
    now = CORPUS_STATS_TTL_MS + 1;
    expect(memo.known(scope, 'workers')).toEqual({ frequencies: {}, unmappedWords: [] });
  });

  it("never keeps a small graph's frequencies (they are counted afresh), but keeps the words' lexemes", () => {
    const memo = new LexemeFrequencyMemo();
    memo.learn(scope, large - 1, learnedOfWorkers);
    expect(memo.known(scope, 'workers working')).toEqual({ frequencies: {}, unmappedWords: [] });
  });

  it("holds at most its bounds however many words one tenant sends; another's frequencies are then counted again, not wrong", () => {
    const memo = new LexemeFrequencyMemo();
    const other = { tenantId: 'other', graphId: 1 };
    memo.learn(other, large, learnedOfWorkers);
    const flood = MAX_FREQUENCIES + MAX_WORDS / 2;
    const frequencies = Object.fromEntries(Array.from({ length: flood }, (_, i) => [`lexeme${i}`, i + 1]));
    const words = Object.fromEntries(Array.from({ length: flood }, (_, i) => [`word${i}`, [`lexeme${i}`]]));
    memo.learn(scope, large, { frequencies, words });
    expect(memo.size.frequencies).toBeLessThanOrEqual(MAX_FREQUENCIES);
    expect(memo.size.words).toBeLessThanOrEqual(MAX_WORDS);
    // The other tenant's entries may be gone: its words are analysed and its frequencies counted again.
    const known = memo.known(other, 'workers');
    expect(known.frequencies.worker === undefined || known.frequencies.worker === 40).toBe(true);
  });

  it('splits words as runs of letters and digits, once each', () => {
    expect(wordsOf('Zoë  met Zoë at 10:30 — café-bar!')).toEqual(['zoë', 'met', 'at', '10', '30', 'café', 'bar']);
  });
});
