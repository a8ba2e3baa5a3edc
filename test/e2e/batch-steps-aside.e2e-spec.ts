import { questionsInFlight } from '@loci/common';
import { DocumentsService, IngestWorker } from '@loci/ingest';
import { createTenant } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Batch work steps aside while questions run (issue 34 (b)): a document's chunk tasks and its
 * writes wait while any tenant's question holds its turn (QuestionTurns counts it in
 * questionsInFlight), at most LOCI_BATCH_PAUSE_MAX_MS a pause, so that a question's statements
 * have PostgreSQL's cores, which no nice value of the CPU threads reaches. Long here (10 s), so that the
 * test sees a pause hold and end with the question, not with its bound (unit-tested with the
 * bound: pause-points.spec, questions-in-flight.spec, cpu-pool.spec).
 */
describe('batch work steps aside while questions run', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, LOCI_RUN_WORKER: 'false', LOCI_BATCH_PAUSE_MAX_MS: '10000' });
  });
  afterAll(() => t.close());

  it('holds a document while a question runs, and processes it once the question ends', async () => {
    const tenant = await createTenant(t.app);
    const documents = t.app.get(DocumentsService);
    const submit = async (name: string, text: string) =>
      (await documents.submit(tenant.id, { name, text, mimeType: 'text/plain', documentDate: new Date('2024-01-01T00:00:00Z') })).document.id;
    const status = async (id: number) => (await documents.get(tenant.id, id)).document.status;
    const processedWithin = async (id: number, ms: number) => {
      for (const started = Date.now(); Date.now() - started < ms; await new Promise((resolve) => setTimeout(resolve, 100))) {
        if ((await status(id)) === 'processed') return true;
      }
      return false;
    };
    const worker = t.app.get(IngestWorker);
    worker.start();
    const questionEnds: Array<() => void> = [];
    try {
      // Warm: the worker polling, the CPU threads up; such a document takes well under a second.
      expect(await processedWithin(await submit('first.txt', 'Carol Diaz works at Globex Industries.'), 60_000)).toBe(true);
      // A question holds its turn (counted as QuestionTurns.take counts it) while the next one comes.
      questionEnds.push(questionsInFlight.begin());
      const held = await submit('second.txt', 'Alice Johnson works at Acme Corporation. Bob Smith lives in Paris.');
      expect(await processedWithin(held, 4_000)).toBe(false);
      questionEnds[0]();
      expect(await processedWithin(held, 60_000)).toBe(true);
      expect((await documents.get(tenant.id, held)).document.statusReason).toBeNull();
    } finally {
      questionEnds.forEach((end) => end());
      await worker.onApplicationShutdown();
    }
  }, 120_000);
});
