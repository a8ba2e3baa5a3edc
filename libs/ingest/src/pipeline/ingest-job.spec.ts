import type { DocumentsRepository } from '@loci/db';
import { isTransient, Job, LeaseLostError, NonRetryableJobError } from '../queue';
import type { DocumentIngester } from './document-ingester';
import { IngestJobHandler } from './ingest-job';

/** What drizzle throws when the store picks the transaction as a deadlock's victim. */
const deadlock = () =>
  Object.assign(new Error('Failed query: SELECT pg_advisory_xact_lock(k) …'), {
    cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }),
  });

describe('IngestJobHandler', () => {
  const job = (attempts: number) => ({ id: 7, tenantId: 't', payload: { documentId: 3 }, attempts, maxAttempts: 5 }) as unknown as Job;
  const setup = (error: unknown) => {
    const setStatus = jest.fn();
    const handler = new IngestJobHandler(
      { ingest: jest.fn().mockRejectedValue(error) } as unknown as DocumentIngester,
      { setStatus } as unknown as DocumentsRepository,
    );
    return { handler, setStatus };
  };
  const context = { signal: new AbortController().signal, heartbeat: async () => true };

  it('retries a lost lock conflict as transient, even at the last attempt, and never fails the document', async () => {
    const { handler, setStatus } = setup(deadlock());
    const thrown = await handler.handle(job(5), context).catch((error: unknown) => error);
    expect(isTransient(thrown)).toBe(true);
    expect(String(thrown)).toContain('deadlock detected (40P01)');
    expect(setStatus).not.toHaveBeenCalled();
  });

  it('fails the document when other errors use up the attempts', async () => {
    const { handler, setStatus } = setup(new Error('connection reset'));
    await expect(handler.handle(job(5), context)).rejects.toBeInstanceOf(NonRetryableJobError);
    expect(setStatus).toHaveBeenCalledWith('t', 3, 'failed', { statusReason: 'Error: connection reset' });
  });

  it('hands the job its signal, and rethrows an attempt that signal stopped as it is, never failing the document', async () => {
    const lost = new AbortController();
    lost.abort(new LeaseLostError('job 7'));
    const aborted = Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
    const ingest = jest.fn().mockRejectedValue(aborted);
    const setStatus = jest.fn();
    const handler = new IngestJobHandler({ ingest } as unknown as DocumentIngester, { setStatus } as unknown as DocumentsRepository);
    // The last attempt: an error of its own would fail the document for good.
    await expect(handler.handle(job(5), { signal: lost.signal, heartbeat: async () => false })).rejects.toBe(aborted);
    expect(ingest).toHaveBeenCalledWith('t', 3, 'job:7:5', {}, lost.signal);
    expect(setStatus).not.toHaveBeenCalled();
  });
});
