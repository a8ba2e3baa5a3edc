import { devNull } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadExecArgv } from './cpu-worker-entry';

describe('threadExecArgv', () => {
  const startThread = (execArgv: string[]) =>
    new Promise<number>((resolve, reject) => {
      try {
        new Worker('process.exit(0)', { eval: true, execArgv }).once('exit', resolve).once('error', reject);
      } catch (error) {
        // The error as Node threw it, its code asserted below (under jest's realm `instanceof Error` is false for it).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        reject(error);
      }
    });

  it("drops the V8 heap flags npm start gives the API, which a thread refuses, and keeps the rest", async () => {
    const parent = ['--max-old-space-size=256', '--enable-source-maps', '--max_semi_space_size', '16'];
    await expect(startThread(parent)).rejects.toMatchObject({ code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
    expect(threadExecArgv(parent)).toEqual(['--enable-source-maps']);
    await expect(startThread(threadExecArgv(parent))).resolves.toBe(0);
  });

  it('drops any other flag a thread refuses (a V8 flag, a per-process one with its value) and keeps the ones it takes', async () => {
    const parent = ['--trace-gc', '--enable-source-maps', '--title', 'loci-api', '--require', devNull, '--no-warnings'];
    await expect(startThread(parent)).rejects.toMatchObject({ code: 'ERR_WORKER_INVALID_EXEC_ARGV' });
    const kept = threadExecArgv(parent);
    expect(kept).toEqual(['--enable-source-maps', '--require', devNull, '--no-warnings']);
    await expect(startThread(kept)).resolves.toBe(0);
  });

  it('asks nothing of Node when no flag is left, and once when every flag is taken', () => {
    const asked: string[][] = [];
    const accepts = (flags: string[]) => (asked.push(flags), true);
    expect(threadExecArgv(['--max-old-space-size=256'], accepts)).toEqual([]);
    expect(asked).toEqual([]);
    expect(threadExecArgv(['--enable-source-maps', '--no-warnings'], accepts)).toEqual(['--enable-source-maps', '--no-warnings']);
    expect(asked).toEqual([['--enable-source-maps', '--no-warnings']]);
  });
});
