import { asStep, questionsInFlight } from '@loci/common';
import type { Settings } from '@loci/config';
import { QuestionTurns } from './question-turns';

/** QuestionTurns with its settings, the statement bound among them. */
function turns(questionStatementsAtOnce: number): QuestionTurns {
  const query = { minSimilarity: 0, bm25PostingsPerTerm: 1, questionsAtOnce: 4, questionTurnLingerMs: 0, questionPauseMaxMs: 0, questionStatementsAtOnce };
  return new QuestionTurns({ query } as Settings);
}

/** A statement that runs until it is ended, counting how many run at once. */
function statements() {
  let running = 0;
  const ends: Array<() => void> = [];
  const started: string[] = [];
  return {
    get running() {
      return running;
    },
    started,
    send: (name: string) =>
      asStep(
        () =>
          new Promise<void>((resolve) => {
            running++;
            started.push(name);
            ends.push(() => {
              running--;
              resolve();
            });
          }),
      ),
    endOne: () => ends.shift()?.(),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('QuestionTurns: the statements of all questions at once', () => {
  it('sends at most LOCI_QUESTION_STATEMENTS_AT_ONCE of them, the next when one ends', async () => {
    const sql = statements();
    const done = turns(2).take('a', () => Promise.all([1, 2, 3, 4].map((i) => sql.send(`a${i}`))));
    await settle();
    expect(sql.running).toBe(2);
    sql.endOne();
    await settle();
    expect(sql.running).toBe(2);
    expect(sql.started).toEqual(['a1', 'a2', 'a3']);
    for (let i = 0; i < 3; i++) {
      sql.endOne();
      await settle();
    }
    await done;
    expect(sql.started).toHaveLength(4);
  });

  it("gives the next slot to another tenant's statement before the rest of a flood's", async () => {
    const sql = statements();
    const questions = turns(2);
    const a = questions.take('a', () => Promise.all([1, 2, 3, 4].map((i) => sql.send(`a${i}`))));
    await settle();
    const b = questions.take('b', () => sql.send('b1'));
    await settle();
    sql.endOne();
    await settle();
    expect(sql.started).toEqual(['a1', 'a2', 'b1']);
    while (sql.running > 0) {
      sql.endOne();
      await settle();
    }
    await Promise.all([a, b]);
  });

  it('bounds nothing at 0, and a statement outside a question is sent as it comes', async () => {
    const sql = statements();
    const done = turns(0).take('a', () => Promise.all([1, 2, 3, 4].map((i) => sql.send(`a${i}`))));
    const outside = sql.send('outside');
    await settle();
    expect(sql.running).toBe(5);
    while (sql.running > 0) sql.endOne();
    await Promise.all([done, outside]);
  });
});

describe('QuestionTurns: questions in flight', () => {
  it('counts a question while it holds its turn, for batch CPU work to step aside, and not after it ends or fails', async () => {
    const questions = turns(0);
    const before = questionsInFlight.running;
    const seen: number[] = [];
    await questions.take('tenant-a', async () => {
      seen.push(questionsInFlight.running);
      await settle();
    });
    expect(seen).toEqual([before + 1]);
    expect(questionsInFlight.running).toBe(before);
    await expect(questions.take('tenant-a', () => Promise.reject(new Error('statement failed')))).rejects.toThrow('statement failed');
    expect(questionsInFlight.running).toBe(before);
  });
});
