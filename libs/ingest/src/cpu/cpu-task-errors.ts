/** Which bound of the CPU pool a task went past. */
export type CpuTaskLimit = 'time' | 'memory';

/** What each task does, in words for a document's `error` field. */
const DOING: Record<string, string> = {
  pieces: 'Cutting the text into chunks',
  extract: 'Finding the entities and facts of a chunk',
  summarize: 'Summarizing a chunk',
  htmlText: 'Reading the HTML',
  pdfText: 'Reading the PDF',
};

/**
 * A task stopped by the pool's bounds: it ran past its time budget (its thread was stopped), or
 * outgrew the heap a thread may have (the thread died). Retrying the same input would end the
 * same way, so a job fails at once (`retryable: false`) and its document says why.
 */
export class CpuTaskLimitError extends Error {
  readonly retryable = false;

  constructor(
    readonly limit: CpuTaskLimit,
    readonly max: number,
    task: string,
  ) {
    const doing = DOING[task] ?? `The step "${task}"`;
    super(
      limit === 'time'
        ? `${doing} took longer than ${max.toLocaleString('en-US')} ms, the most one step may take; split the document into smaller ones.`
        : `${doing} needed more than ${max.toLocaleString('en-US')} MB of memory, the most one step may use; split the document into smaller ones.`,
    );
    this.name = 'CpuTaskLimitError';
  }
}

/**
 * The pool's failure of a task as a CpuTaskLimitError when one of its bounds ended it (piscina
 * rejects an aborted task with an AbortError; a thread over its resourceLimits dies with
 * ERR_WORKER_OUT_OF_MEMORY), else the error as it is.
 */
export function asCpuTaskLimit(error: unknown, task: string, bounds: { timeoutMs: number; heapMb: number }): unknown {
  // By name and code, not `instanceof Error`: Node makes a dead thread's error in its own realm,
  // which under jest's VM modules is not the test's Error (CI's Node 24 run failed so).
  if (typeof error !== 'object' || error === null) return error;
  const { name, code } = error as { name?: unknown; code?: unknown };
  if (name === 'AbortError') return new CpuTaskLimitError('time', bounds.timeoutMs, task);
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return new CpuTaskLimitError('memory', bounds.heapMb, task);
  return error;
}
