/**
 * Points inside a long CPU task (between a PDF's pages) where it may step aside for questions.
 * Nothing happens at them unless a CPU pool thread installed what does (stepAsideForQuestions):
 * the same code run on the request thread (no pool) must never block it.
 */
let pause: (() => void) | undefined;

export function pausePoint(): void {
  pause?.();
}

export function setPausePoint(step: (() => void) | undefined): void {
  pause = step;
}

export interface StepAsidePolicy {
  /** The longest one pause lasts, in ms: batch work goes on after it even while questions run. */
  maxPauseMs: number;
  /** The least the task runs between two pauses, in ms: under a steady flow of questions it still gets minRunMs of every maxPauseMs + minRunMs. */
  minRunMs: number;
  /**
   * The most one task's pauses add up to, in ms: they count against its time budget (the pool
   * cannot tell a pause from work), and a flood of one tenant's questions must not fail another
   * tenant's long PDF for taking too long.
   */
  maxTotalMs: number;
}

/**
 * A pause point for a CPU thread: while any question runs (`questionsBuffer`, the shared count
 * of QuestionsInFlight), it blocks this thread until none does or maxPauseMs has passed, unless
 * the task has run less than minRunMs since its last pause. Blocking is right here: a pool thread
 * does one task at a time, and uploads may hold all threads but one (ThreadSlots), so questions
 * always have a thread while one waits.
 */
export function stepAsideForQuestions(questionsBuffer: SharedArrayBuffer, policy: StepAsidePolicy): StepAside {
  const running = new Int32Array(questionsBuffer);
  const now = () => performance.now();
  let resumedAt = Number.NEGATIVE_INFINITY;
  let pausedThisTask = 0;
  return {
    newTask() {
      pausedThisTask = 0;
    },
    pause() {
      if (!(policy.maxPauseMs > 0) || Atomics.load(running, 0) === 0) return;
      const started = now();
      if (started - resumedAt < policy.minRunMs) return;
      const deadline = started + Math.min(policy.maxPauseMs, policy.maxTotalMs - pausedThisTask);
      for (let count = Atomics.load(running, 0); count > 0; count = Atomics.load(running, 0)) {
        const left = deadline - now();
        if (left <= 0) break;
        Atomics.wait(running, 0, count, left);
      }
      resumedAt = now();
      pausedThisTask += resumedAt - started;
    },
  };
}

/** A CPU thread's pauses: `pause` at a task's pause points, `newTask` as each task starts. */
export interface StepAside {
  pause: () => void;
  newTask: () => void;
}
