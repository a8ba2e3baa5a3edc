import { periodNamed, raiseToldInPeriod, toldWithin } from './question-time';
import type { RetrievedChunk } from './retrieval.types';

const iso = (d?: Date) => d?.toISOString().slice(0, 10);

describe('the period a question names', () => {
  it.each([
    ['Where did Maya travel in May 2024?', '2024-05-01', '2024-06-01'],
    ['Who employed Jonah in December of 2023?', '2023-12-01', '2024-01-01'],
    ['What did Priya do on 3 March 2024?', '2024-03-03', '2024-03-04'],
    ['What happened on March 3rd, 2024?', '2024-03-03', '2024-03-04'],
    ['Which city did Omar live in during 2023?', '2023-01-01', '2024-01-01'],
    ['What changed in 2024-02?', '2024-02-01', '2024-03-01'],
  ])('%s', (question, from, to) => {
    const period = periodNamed(question);
    expect([iso(period?.from), iso(period?.to)]).toEqual([from, to]);
  });

  it('names none without a year, or for a number that is not one', () => {
    expect(periodNamed('Where did Maya go in May?')).toBeUndefined();
    expect(periodNamed('May I ask where Maya works now?')).toBeUndefined();
    expect(periodNamed('How many of the 2500 seats were filled?')).toBeUndefined();
    expect(periodNamed('Which band formed in Manchester and released 2 albums?')).toBeUndefined();
  });
});

describe('passages told within the period', () => {
  const chunk = (chunkId: number, date: string | null) => ({ chunkId, documentDate: date ? new Date(date) : null }) as RetrievedChunk;
  const may = periodNamed('in May 2024')!;

  it('counts a document dated in the period or within a month after it, not before it or undated', () => {
    expect(toldWithin(chunk(1, '2024-05-20'), may)).toBe(true);
    expect(toldWithin(chunk(1, '2024-06-15'), may)).toBe(true);
    expect(toldWithin(chunk(1, '2024-07-15'), may)).toBe(false);
    expect(toldWithin(chunk(1, '2024-04-30'), may)).toBe(false);
    expect(toldWithin(chunk(1, null), may)).toBe(false);
  });

  it('raises them above the passages of other times, keeping the order within each', () => {
    const ranked = [chunk(1, '2024-01-02'), chunk(2, '2024-09-01'), chunk(3, '2024-06-03'), chunk(4, null), chunk(5, '2024-05-10')];
    expect(raiseToldInPeriod(ranked, 'Where did Maya travel in May 2024?').map((c) => c.chunkId)).toEqual([3, 5, 1, 2, 4]);
  });

  it('leaves a ranking as it was when the question names no time or no passage is dated then', () => {
    const ranked = [chunk(1, null), chunk(2, '2023-01-01')];
    expect(raiseToldInPeriod(ranked, 'Where does Maya work now?')).toBe(ranked);
    expect(raiseToldInPeriod(ranked, 'Where did Maya go in May 2024?')).toBe(ranked);
  });
});

