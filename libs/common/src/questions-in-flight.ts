/**
 * How many questions are doing their work on this machine now (QuestionTurns counts each for as
 * long as it holds a turn), kept in memory every thread of the process reads: a SharedArrayBuffer
 * the CPU pool hands its threads. Batch work (an upload's PDF, a document's chunks) steps aside
 * while it is above zero (issue 34 (b)): its threads' nice value made it yield to the request
 * thread, but not to PostgreSQL, whose backends are in another scheduling group (Linux autogroups,
 * a service's cgroup) where a nice value inside this process means nothing; beside another
 * tenant's heavy PDFs a question's statements ran at up to twice their quiet time.
 */
export class QuestionsInFlight {
  readonly buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  private readonly count = new Int32Array(this.buffer);

  /** Counts one question until the returned function is called (once; later calls do nothing). */
  begin(): () => void {
    Atomics.add(this.count, 0, 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      // The last one out wakes whatever waits for quiet, here and on the CPU threads.
      if (Atomics.sub(this.count, 0, 1) === 1) Atomics.notify(this.count, 0);
    };
  }

  get running(): number {
    return Atomics.load(this.count, 0);
  }

  /** Resolves when no question runs, or after `maxMs`, whichever comes first; never blocks the thread. */
  async quiet(maxMs: number): Promise<void> {
    if (!(maxMs > 0)) return;
    const deadline = performance.now() + maxMs;
    for (let running = this.running; running > 0; running = this.running) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      const wait = Atomics.waitAsync(this.count, 0, running, left);
      if (wait.async) await wait.value;
    }
  }
}

/** The process's one count: questions and the CPU pool of one process share it. */
export const questionsInFlight = new QuestionsInFlight();
