import { runInNewContext } from 'node:vm';
import { asCpuTaskLimit, CpuTaskLimitError } from './cpu-task-errors';

const bounds = { timeoutMs: 30_000, heapMb: 512 };

describe('asCpuTaskLimit', () => {
  it("names a thread's death of memory and a task's abort, whichever realm made the error", () => {
    // Node makes a dead thread's error in its own realm: `instanceof Error` is false for it where
    // the caller runs in another (jest's VM modules), and CI once saw the raw error so.
    const foreignOutOfMemory = runInNewContext(`Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' })`) as object;
    expect(foreignOutOfMemory instanceof Error).toBe(false);
    const memory = asCpuTaskLimit(foreignOutOfMemory, 'extract', bounds);
    expect(memory).toBeInstanceOf(CpuTaskLimitError);
    expect(memory).toMatchObject({ limit: 'memory', max: 512, retryable: false });
    expect((memory as Error).message).toBe('Finding the entities and facts of a chunk needed more than 512 MB of memory, the most one step may use; split the document into smaller ones.');

    const aborted = Object.assign(new Error('The task has been aborted'), { name: 'AbortError' });
    expect(asCpuTaskLimit(aborted, 'pdfText', bounds)).toMatchObject({ limit: 'time', max: 30_000, message: expect.stringMatching(/^Reading the PDF took longer than 30,000 ms/) });
  });

  it('passes any other failure on as it is', () => {
    const other = new TypeError('bad input');
    expect(asCpuTaskLimit(other, 'extract', bounds)).toBe(other);
    expect(asCpuTaskLimit('a string', 'extract', bounds)).toBe('a string');
    expect(asCpuTaskLimit(undefined, 'extract', bounds)).toBeUndefined();
  });
});
