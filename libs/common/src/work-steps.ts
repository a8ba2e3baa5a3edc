import { AsyncLocalStorage } from 'node:async_hooks';

/** Runs one step of the work (a statement): it may wait first, or hold something while it runs. */
export type StepRunner = <T>(step: () => Promise<T>) => Promise<T>;

const storage = new AsyncLocalStorage<StepRunner>();

/**
 * Runs `work` with a runner for its steps: a question's retrieval runs in its tenant's turn with
 * one (QuestionTurns), and the store's read path hands it each statement (asStep), so a flood's
 * question can wait there while a lighter tenant's runs, and the statements of every question
 * can be bounded together, without every call on the way passing the runner down.
 */
export function runInSteps<T>(runner: StepRunner, work: () => T): T {
  return storage.run(runner, work);
}

/** One step (a statement) of the work: through its runner inside runInSteps, as it is outside. */
export function asStep<T>(step: () => Promise<T>): Promise<T> {
  const runner = storage.getStore();
  return runner ? runner(step) : step();
}
