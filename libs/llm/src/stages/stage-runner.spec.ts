import { inlineLocalTextWork, type LocalTextWork } from '../local/local-text-work';
import type { ModelGateway } from '../gateway/model-gateway';
import { KEYWORDS_INLINE_MAX_CHARS, OFFLINE_KEYWORDS_MAX_CHARS, StageRunner } from './stage-runner';

describe('StageRunner.offlineKeywords', () => {
  // The CPU pool as another tenant's ingestion leaves it: every thread busy, nothing handed out.
  const asked: string[] = [];
  const busyPool: LocalTextWork = { ...inlineLocalTextWork, keywords: (question) => (asked.push(question), new Promise(() => undefined)) };
  const stages = new StageRunner({} as ModelGateway, busyPool);
  beforeEach(() => (asked.length = 0));

  it("reads a short question's keywords on the calling thread: it never waits for a pool thread", async () => {
    const keywords = await stages.offlineKeywords('Where does Alice Johnson work?');
    expect(keywords.low_level).toContain('Alice Johnson');
    expect(asked).toEqual([]);
  });

  it('hands a longer question to the pool, cut to what the extractor reads', () => {
    const long = `Where does Alice Johnson work? ${'Tell me about her colleagues. '.repeat(200)}`;
    expect(long.length).toBeGreaterThan(OFFLINE_KEYWORDS_MAX_CHARS);
    void stages.offlineKeywords(long);
    expect(asked).toEqual([long.slice(0, OFFLINE_KEYWORDS_MAX_CHARS)]);
    void stages.offlineKeywords('x'.repeat(KEYWORDS_INLINE_MAX_CHARS + 1));
    expect(asked).toHaveLength(2);
  });
});
