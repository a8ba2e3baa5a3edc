import { Worker } from 'node:worker_threads';
import { QuestionsInFlight } from './questions-in-flight';

const settled = <T>(promise: Promise<T>) => {
  const state = { done: false };
  void promise.then(() => (state.done = true));
  return state;
};
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('QuestionsInFlight', () => {
  it('counts each question once, however often its end is called', () => {
    const questions = new QuestionsInFlight();
    const first = questions.begin();
    const second = questions.begin();
    expect(questions.running).toBe(2);
    first();
    first();
    expect(questions.running).toBe(1);
    second();
    expect(questions.running).toBe(0);
  });

  it('lets batch work wait for quiet without blocking the thread: it goes on when the last question ends', async () => {
    const questions = new QuestionsInFlight();
    const ends = [questions.begin(), questions.begin()];
    const waited = settled(questions.quiet(60_000));
    await tick(50);
    expect(waited.done).toBe(false);
    ends[0]();
    await tick(50);
    expect(waited.done).toBe(false);
    ends[1]();
    await tick(50);
    expect(waited.done).toBe(true);
  });

  it('lets batch work go on after its longest pause while questions never stop', async () => {
    const questions = new QuestionsInFlight();
    const end = questions.begin();
    const waited = settled(questions.quiet(200));
    await tick(50);
    expect(waited.done).toBe(false);
    await tick(1_000);
    expect(waited.done).toBe(true);
    expect(questions.running).toBe(1);
    end();
    // No pause at all: none running, or pausing switched off.
    await expect(Promise.race([questions.quiet(60_000).then(() => 'went on'), tick(1_000).then(() => 'waited')])).resolves.toBe('went on');
    questions.begin();
    await expect(Promise.race([questions.quiet(0).then(() => 'went on'), tick(1_000).then(() => 'waited')])).resolves.toBe('went on');
  });

  it("is one count for every thread: a question ending on another thread wakes this one's wait", async () => {
    const questions = new QuestionsInFlight();
    questions.begin();
    const waited = settled(questions.quiet(60_000));
    // The other thread ends the question as QuestionsInFlight's end does: subtract, then notify.
    const other = new Worker('const { workerData } = require("node:worker_threads"); const n = new Int32Array(workerData); setTimeout(() => { Atomics.sub(n, 0, 1); Atomics.notify(n, 0); }, 100);', {
      eval: true,
      workerData: questions.buffer,
    });
    await new Promise((resolve) => other.once('exit', resolve));
    await tick(50);
    expect(waited.done).toBe(true);
    expect(questions.running).toBe(0);
  });
});
