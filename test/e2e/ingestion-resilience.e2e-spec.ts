import { randomUUID } from 'node:crypto';
import { DocumentsRepository, GraphReadsRepository, GraphsRepository, InferencesRepository } from '@loci/db';
import { DocumentIngester, DocumentsService, INGEST_DOCUMENT_JOB, IngestWorker, JobQueue } from '@loci/ingest';
import { StageRunner } from '@loci/llm';
import { createTenant, embeddingFor, LlmDouble, llmDoubleEnv, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Ingestion with the real SDKs against the loopback double: entity resolution decided by the
 * vectors, failure and retry, and a worker that dies mid-document.
 */
describe('ingestion with model providers', () => {
  let double: LlmDouble;
  let t: TestApp;

  beforeAll(async () => {
    double = await startLlmDouble();
    t = await startTestApp({
      ...llmDoubleEnv(double),
      LOCI_LLM_MAX_RETRIES: '0',
      LOCI_RUN_WORKER: 'false',
      LOCI_CHUNK_TOKENS: '100',
      LOCI_CHUNK_OVERLAP_TOKENS: '0',
    });
  });
  afterAll(async () => {
    await t.close();
    await double.close();
  });
  beforeEach(() => double.reset());

  /** The double answers extraction with `entities`, summaries with a fixed one. */
  function scriptExtraction(entities: Array<{ name: string; type: string }>, relations: unknown[] = []) {
    double.anthropic.reply((body) => {
      const system = String(body.system ?? '');
      if (system.includes('summarize')) return { text: '{"summary":"A passage."}' };
      return { text: JSON.stringify({ entities: entities.map((e) => ({ ...e, description: '' })), relations }) };
    });
  }

  /** Embeddings where the listed names share one vector; everything else gets its own. */
  function scriptEmbeddings(sameVectorNames: string[]) {
    const shared = embeddingFor('shared-name-vector', 1024);
    double.openai.embeddings.reply((body) => ({
      vectors: (body.input as string[]).map((input) => (sameVectorNames.includes(input) ? shared : embeddingFor(input, 1024))),
    }));
  }

  async function rememberAs(tenantId: string, userId: string, text: string) {
    const { RememberService } = await import('@loci/ingest');
    return t.app.get(RememberService).remember(tenantId, `req-${randomUUID()}`, { userId, text, dataset: 'main' });
  }

  async function entityNames(tenantId: string, userId: string) {
    const graph = await t.app.get(GraphsRepository).findGbGraph(tenantId, userId, 'main');
    return (await t.app.get(GraphReadsRepository).graphContents(tenantId, graph!.id)).entities.map((e) => e.name);
  }

  it('merges "Acme" and "ACME Corp." when their name vectors say they are the same', async () => {
    const tenant = await createTenant(t.app);
    scriptEmbeddings(['Acme', 'ACME Corp.']);
    scriptExtraction([{ name: 'Acme', type: 'organization' }]);
    await rememberAs(tenant.id, 'u', 'Acme makes anvils.');
    scriptExtraction([{ name: 'ACME Corp.', type: 'organization' }]);
    const second = await rememberAs(tenant.id, 'u', 'ACME Corp. ships worldwide.');
    expect(second.entities.map((e) => [e.row.name, e.change])).toEqual([['Acme', 'matched']]);
    expect(await entityNames(tenant.id, 'u')).toEqual(['Acme']);
  });

  it('keeps them apart when the vectors differ', async () => {
    const tenant = await createTenant(t.app);
    scriptEmbeddings([]);
    scriptExtraction([{ name: 'Acme', type: 'organization' }]);
    await rememberAs(tenant.id, 'u', 'Acme makes anvils.');
    scriptExtraction([{ name: 'ACME Corp.', type: 'organization' }]);
    await rememberAs(tenant.id, 'u', 'ACME Corp. ships worldwide.');
    expect((await entityNames(tenant.id, 'u')).sort()).toEqual(['ACME Corp.', 'Acme']);
  });

  it('fails a document whose model calls fail, with the reason, and retries it on request', async () => {
    const tenant = await createTenant(t.app);
    const documents = t.app.get(DocumentsService);
    const worker = t.app.get(IngestWorker);
    worker.start();
    try {
      double.anthropic.reply({ status: 500 });
      const { document } = await documents.submit(tenant.id, { name: 'd', text: 'Alice works at Acme.', mimeType: 'text/plain' });
      await worker.drain();
      const failed = await documents.get(tenant.id, document.id);
      expect(failed.document.status).toBe('failed');
      expect(failed.document.statusReason).toMatch(/500|unavailable|anthropic/i);
      expect(failed.counts).toEqual({ chunks: 0, entities: 0, edges: 0 }); // nothing half-written

      scriptEmbeddings([]);
      scriptExtraction([{ name: 'Alice', type: 'person' }, { name: 'Acme', type: 'organization' }], [
        { source: 'Alice', target: 'Acme', relation: 'works_at', description: 'Alice works at Acme.', keywords: [] },
      ]);
      await documents.retry(tenant.id, document.id);
      await worker.drain();
      const retried = await documents.get(tenant.id, document.id);
      expect(retried.document.status).toBe('processed');
      expect(retried.counts).toMatchObject({ chunks: 1, entities: 2, edges: 1 });
    } finally {
      await worker.onApplicationShutdown();
    }
  });

  it('resumes a document whose worker died after some chunks, without duplicates', async () => {
    const tenant = await createTenant(t.app);
    scriptEmbeddings([]);
    double.anthropic.reply((body) => {
      const system = String(body.system ?? '');
      if (system.includes('summarize')) return { text: '{"summary":"A passage."}' };
      const text = String(body.messages?.[0]?.content ?? '');
      const people = [...new Set(text.match(/Person\d+/g) ?? [])];
      return {
        text: JSON.stringify({
          entities: [...people.map((name) => ({ name, type: 'person', description: '' })), { name: 'Acme', type: 'organization', description: '' }],
          relations: people.map((name) => ({ source: name, target: 'Acme', relation: 'works_at', description: `${name} works at Acme.`, keywords: [] })),
        }),
      };
    });
    // Three chunks of ~100 tokens, each naming its own person.
    const paragraph = (n: number) => `Person${n} works at Acme. ` + 'The weather was fine and the office was quiet that day. '.repeat(7);
    const text = [1, 2, 3].map(paragraph).join('\n\n');
    const { document } = await t.app.get(DocumentsService).submit(tenant.id, { name: 'long', text, mimeType: 'text/plain' });
    const queue = t.app.get(JobQueue);

    // A first worker claims the job, writes one chunk, and dies (never completes, never renews).
    const claimed = await queue.claim('doomed-worker', [INGEST_DOCUMENT_JOB], 300);
    expect(claimed).not.toBeNull();
    const stages = t.app.get(StageRunner);
    const realExtract = stages.extract.bind(stages);
    let calls = 0;
    const spy = jest.spyOn(stages, 'extract').mockImplementation(async (...args) => {
      if (++calls === 2) throw new Error('process killed');
      return realExtract(...args);
    });
    await expect(t.app.get(DocumentIngester).ingest(tenant.id, document.id, `job:${claimed!.id}:1`)).rejects.toThrow('process killed');
    spy.mockRestore();
    const halfway = await t.app.get(DocumentsRepository).get(tenant.id, document.id);
    expect(halfway).toMatchObject({ status: 'processing', chunksDone: 1 });
    expect(halfway!.chunksTotal).toBeGreaterThanOrEqual(3);

    // After the lease expires, a live worker picks the job up and finishes the other chunks.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const worker = t.app.get(IngestWorker);
    worker.start();
    try {
      await worker.drain();
    } finally {
      await worker.onApplicationShutdown();
    }
    const done = await t.app.get(DocumentsService).get(tenant.id, document.id);
    expect(done.document).toMatchObject({ status: 'processed', chunksDone: done.document.chunksTotal });
    expect(done.counts.chunks).toBe(done.document.chunksTotal);
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenant.id);
    const { entities, edges } = await t.app.get(GraphReadsRepository).graphContents(tenant.id, graph.id);
    expect(entities.map((e) => e.name).sort()).toEqual(['Acme', 'Person1', 'Person2', 'Person3']);
    expect(edges).toHaveLength(3);
    // The resumed attempt extracted only the chunks the dead worker had not written.
    const resumedExtracts = (await t.app.get(InferencesRepository).listByRequest(tenant.id, `job:${claimed!.id}:2`)).filter(
      (r) => r.stage === 'extract',
    );
    expect(resumedExtracts).toHaveLength(done.document.chunksTotal - 1);
  });
});
