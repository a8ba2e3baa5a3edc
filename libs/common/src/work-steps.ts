import { AsyncLocalStorage } from 'node:async_hooks';

/** Asked between two steps of the work: a promise to wait for first, or nothing. */
export type StepGate = () => Promise<void> | undefined;

const storage = new AsyncLocalStorage<StepGate>();

/**
 * Runs `work` with a gate at its steps: a question's retrieval runs in its tenant's turn with
 * one (QuestionTurns), and the store's read path asks it before each statement (betweenSteps),
 * so a flood's question can wait there while a lighter tenant's runs, without every call on the
 * way passing the gate down.
 */
export function runInSteps<T>(gate: StepGate, work: () => T): T {
  return storage.run(gate, work);
}

/** Called before a step (a statement): what to wait for first, undefined outside gated work or when nothing is. */
export function betweenSteps(): Promise<void> | undefined {
  return storage.getStore()?.();
}
