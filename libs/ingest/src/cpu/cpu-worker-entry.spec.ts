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
});
