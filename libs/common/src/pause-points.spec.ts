import { Worker } from 'node:worker_threads';
import { pausePoint, setPausePoint, stepAsideForQuestions } from './pause-points';

/** A count of `running` questions (as QuestionsInFlight keeps it) that another thread sets to 0, `after` ms from now. */
function questionsEndingOnAnotherThread(running: number, after: number): { buffer: SharedArrayBuffer; done: Promise<unknown> } {
  const buffer = new SharedArrayBuffer(4);
  new Int32Array(buffer)[0] = running;
  const other = new Worker(
    'const { workerData } = require("node:worker_threads"); const n = new Int32Array(workerData.buffer); setTimeout(() => { Atomics.store(n, 0, 0); Atomics.notify(n, 0); }, workerData.after);',
    { eval: true, workerData: { buffer, after } },
  );
  return { buffer, done: new Promise((resolve) => other.once('exit', resolve)) };
}

describe('pause points', () => {
  afterEach(() => setPausePoint(undefined));

  it('do nothing where no CPU thread installed a pause (the request thread must never block)', () => {
    const started = performance.now();
    pausePoint();
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('stop a CPU thread while a question runs, until the last one ends', async () => {
    const { buffer, done } = questionsEndingOnAnotherThread(2, 300);
    setPausePoint(stepAsideForQuestions(buffer, { maxPauseMs: 60_000, minRunMs: 20, maxTotalMs: 60_000 }).pause);
    const started = performance.now();
    pausePoint(); // blocks this thread until the other sets the count to 0
    const pausedMs = performance.now() - started;
    await done;
    expect(new Int32Array(buffer)[0]).toBe(0);
    // It waited for the question: not the 60 s maximum, not nothing.
    expect(pausedMs).toBeGreaterThanOrEqual(250);
    expect(pausedMs).toBeLessThan(30_000);
  });

  it('pause at most maxPauseMs, then run at least minRunMs before the next pause, while questions never stop', () => {
    const buffer = new SharedArrayBuffer(4);
    new Int32Array(buffer)[0] = 1;
    const { pause } = stepAsideForQuestions(buffer, { maxPauseMs: 50, minRunMs: 300, maxTotalMs: 60_000 });
    const timed = () => {
      const started = performance.now();
      pause();
      return performance.now() - started;
    };
    const first = timed();
    expect(first).toBeGreaterThanOrEqual(45);
    expect(first).toBeLessThan(5_000);
    // Right after a pause the task runs on: no pause until it has run minRunMs.
    expect(timed()).toBeLessThan(45);
    // The task "runs" 350 ms, then pauses again.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 350);
    expect(timed()).toBeGreaterThanOrEqual(45);
  });

  it("stop pausing a task once its pauses add up to maxTotalMs (they count against its time budget), and pause the next task again", () => {
    const buffer = new SharedArrayBuffer(4);
    new Int32Array(buffer)[0] = 1;
    const aside = stepAsideForQuestions(buffer, { maxPauseMs: 100, minRunMs: 0, maxTotalMs: 150 });
    const timed = () => {
      const started = performance.now();
      aside.pause();
      return performance.now() - started;
    };
    const pauses = [timed(), timed(), timed(), timed()];
    expect(pauses[0]).toBeGreaterThanOrEqual(95);
    // 100 + at most the 50 left, then none: the task's pauses total no more than 150 (and timer slack).
    expect(pauses[0] + pauses[1]).toBeLessThan(300);
    expect(pauses[2] + pauses[3]).toBeLessThan(20);
    aside.newTask();
    expect(timed()).toBeGreaterThanOrEqual(95);
  });

  it('never pause when pausing is off', () => {
    const buffer = new SharedArrayBuffer(4);
    new Int32Array(buffer)[0] = 1;
    setPausePoint(stepAsideForQuestions(buffer, { maxPauseMs: 0, minRunMs: 0, maxTotalMs: 60_000 }).pause);
    const started = performance.now();
    pausePoint();
    expect(performance.now() - started).toBeLessThan(45);
  });
});
