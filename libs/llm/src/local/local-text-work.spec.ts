import { countTokens } from '../metering/token-counter';
import { countLocalTokens, inlineLocalTextWork, TOKENS_COUNTED_INLINE_CHARS } from './local-text-work';

describe('countLocalTokens', () => {
  /** inlineLocalTextWork's count, with the texts it was asked for (the CPU pool's stand-in: no thread here). */
  function recordingWork() {
    const asked: string[][] = [];
    return {
      asked,
      countTokens: (texts: string[]) => {
        asked.push(texts);
        return inlineLocalTextWork.countTokens(texts);
      },
    };
  }

  it("counts a long stage's texts where its work runs (not on the event loop), the same counts as countTokens", async () => {
    // An extraction naming a thousand people: ~150 KB of JSON, ~0.4 s to count.
    const input = 'Members: ' + Array.from({ length: 1000 }, (_, i) => `Person ${i} Kalomi`).join(', ');
    const output = JSON.stringify({ entities: Array.from({ length: 1000 }, (_, i) => ({ name: `Person ${i} Kalomi`, type: 'person' })) });
    const work = recordingWork();
    await expect(countLocalTokens(work, input, output)).resolves.toEqual([countTokens(input), countTokens(output)]);
    expect(work.asked).toEqual([[input, output]]);
  });

  it('counts short texts inline, where a thread round trip would cost more than the count', async () => {
    const work = recordingWork();
    const input = 'Where does Alice work?';
    const output = 'x'.repeat(TOKENS_COUNTED_INLINE_CHARS - input.length);
    await expect(countLocalTokens(work, input, output)).resolves.toEqual([countTokens(input), countTokens(output)]);
    expect(work.asked).toEqual([]);
  });
});
