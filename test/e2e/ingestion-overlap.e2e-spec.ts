import { DocumentsRepository, GraphReadsRepository, GraphsRepository, InferencesRepository } from '@loci/db';
import { DocumentIngester, DocumentsService, GraphWriter, LeaseLostError } from '@loci/ingest';
import { createTenant, embeddingFor, LlmDouble, llmDoubleEnv, ReceivedRequest, startLlmDouble } from '@loci/testing';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * One document's chunks overlap: the next chunk's model calls run while the chunk before it is
 * being written, and the writes stay one at a time in chunk order (a later chunk supersedes an
 * earlier one's fact and resolves to its entities). A failed chunk leaves the chunks before it
 * written, ends the calls made ahead for the chunks after it, and a retry finishes the rest.
 */
describe('ingestion: next chunk prepared while the current one is written', () => {
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
  beforeEach(() => {
    double.reset();
    double.openai.embeddings.reply((body) => ({ vectors: (body.input as string[]).map((input) => embeddingFor(input, 1024)) }));
  });

  /** What the double extracts from each chunk: Alice works at one employer a chunk, from a later year each time. */
  const employers = ['Acme', 'Globex', 'Initech'];
  const filler = 'The weather was fine and the office was quiet that day. '.repeat(7);
  const text = employers.map((employer, n) => `Marker${n} Alice works at ${employer}. ${filler}`).join('\n\n');
  const chunkOf = (body: ReceivedRequest['body']): number => Number(/Marker(\d)/.exec(JSON.stringify(body.messages ?? ''))?.[1] ?? -1);
  const isExtract = (request: ReceivedRequest) =>
    request.endpoint === 'anthropic.messages' && !String(request.body.system ?? '').includes('summarize');

  /** `holds`: per chunk, what its extraction's reply waits for. */
  function scriptExtraction(holds: Record<number, () => Promise<unknown>> = {}) {
    double.anthropic.reply((body) => {
      if (String(body.system ?? '').includes('summarize')) return { text: '{"summary":"A passage."}' };
      const n = chunkOf(body);
      const employer = employers[n];
      return {
        ...(holds[n] ? { hold: holds[n]() } : {}),
        text: JSON.stringify({
          entities: [
            { name: 'Alice', type: 'person', description: '' },
            { name: employer, type: 'organization', description: '' },
          ],
          relations: [
            {
              source: 'Alice',
              target: employer,
              relation: 'works_at',
              description: `Alice works at ${employer}.`,
              keywords: [],
              valid_at: `${2020 + n}-01-01T00:00:00Z`,
              invalid_at: null,
            },
          ],
        }),
      };
    });
  }

  async function submit(tenantId: string) {
    const { document } = await t.app.get(DocumentsService).submit(tenantId, { name: 'career', text, mimeType: 'text/plain' });
    return document;
  }

  it('asks for the next chunk’s extraction before the current one is written, writes them one at a time in order, and a later chunk supersedes an earlier one', async () => {
    const tenant = await createTenant(t.app);
    // A chunk's extraction is answered once the next chunk's has reached the model, or after
    // 5 s: done one after the other, the next is asked only after the chunk before is written.
    // (On PGlite, whose one connection a transaction holds, a call asked while a chunk is being
    // written waits for its commit to write its ledger row, so the test holds it before.)
    const asked = employers.map(() => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    });
    const askedOrLate = (n: number) => () => {
      asked[n].resolve();
      return Promise.race([asked[n + 1]?.promise ?? Promise.resolve(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    };
    scriptExtraction({ 0: askedOrLate(0), 1: askedOrLate(1), 2: askedOrLate(2) });
    const document = await submit(tenant.id);
    const writer = t.app.get(GraphWriter);
    const realWrite = writer.write.bind(writer);
    const writes: Array<{ chunkId: number | undefined; start: number; end: number; nextExtractSeen: boolean }> = [];
    const spy = jest.spyOn(writer, 'write').mockImplementation(async (db, input) => {
      const start = performance.now();
      const nextExtractSeen = double.requests.some((r) => isExtract(r) && chunkOf(r.body) === writes.length + 1);
      // The first write takes a while, so the writes would overlap if they were not one at a time.
      if (writes.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
      const result = await realWrite(db, input);
      writes.push({ chunkId: input.chunkId, start, end: performance.now(), nextExtractSeen });
      return result;
    });
    let changes;
    try {
      changes = await t.app.get(DocumentIngester).ingest(tenant.id, document.id, 'req-overlap');
    } finally {
      spy.mockRestore();
    }

    // The next chunk's extraction had reached the model before the chunk before it was written.
    expect(writes.map((w) => w.nextExtractSeen)).toEqual([true, true, false]);
    expect(writes).toHaveLength(3);
    // One at a time, in chunk order (chunk ids are allocated as the chunks are written).
    for (let i = 1; i < writes.length; i++) {
      expect(writes[i].chunkId!).toBeGreaterThan(writes[i - 1].chunkId!);
      expect(writes[i].start).toBeGreaterThanOrEqual(writes[i - 1].end);
    }
    // Each later chunk found Alice of the earlier one and superseded her employment.
    expect(changes.edges.superseded).toHaveLength(2);
    const graph = await t.app.get(GraphsRepository).defaultGraph(tenant.id);
    const { entities, edges } = await t.app.get(GraphReadsRepository).graphContents(tenant.id, graph.id);
    expect(entities.map((e) => e.name).sort()).toEqual(['Acme', 'Alice', 'Globex', 'Initech']);
    const byTarget = new Map(edges.map((e) => [entities.find((x) => x.id === e.targetId)!.name, e]));
    expect(byTarget.get('Acme')).toMatchObject({ invalidAt: new Date('2021-01-01T00:00:00Z') });
    expect(byTarget.get('Acme')!.expiredAt).not.toBeNull();
    expect(byTarget.get('Globex')).toMatchObject({ invalidAt: new Date('2022-01-01T00:00:00Z') });
    expect(byTarget.get('Globex')!.expiredAt).not.toBeNull();
    expect(byTarget.get('Initech')).toMatchObject({ invalidAt: null, expiredAt: null });
  });

  it('a chunk that fails to write leaves the chunks before it, ends the calls made ahead, and a retry finishes the document', async () => {
    const tenant = await createTenant(t.app);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let thirdAsked!: () => void;
    const thirdInFlight = new Promise<void>((resolve) => (thirdAsked = resolve));
    // The third chunk's extraction is held open, and the second one's answered only once the
    // third has reached the model: it is in flight when the second chunk fails to write.
    scriptExtraction({
      1: () => Promise.race([thirdInFlight, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]),
      2: () => {
        thirdAsked();
        return held;
      },
    });
    const document = await submit(tenant.id);
    const writer = t.app.get(GraphWriter);
    const realWrite = writer.write.bind(writer);
    let calls = 0;
    const spy = jest.spyOn(writer, 'write').mockImplementation(async (db, input) => {
      if (++calls === 2) throw new Error('store went away');
      return realWrite(db, input);
    });
    try {
      await expect(t.app.get(DocumentIngester).ingest(tenant.id, document.id, 'req-fails')).rejects.toThrow('store went away');
    } finally {
      spy.mockRestore();
    }
    try {
      // When the attempt ended nothing of it was still running: the held call was given up,
      // and every call it made is settled in the ledger.
      const third = double.requests.find((r) => isExtract(r) && chunkOf(r.body) === 2)!;
      expect(third.clientClosed).toBe(true);
      const ledger = await t.app.get(InferencesRepository).listByRequest(tenant.id, 'req-fails');
      expect(ledger.filter((row) => row.status === 'pending')).toEqual([]);
      expect(await t.app.get(DocumentsRepository).get(tenant.id, document.id)).toMatchObject({ status: 'processing', chunksDone: 1 });
    } finally {
      release();
    }

    scriptExtraction();
    await t.app.get(DocumentIngester).ingest(tenant.id, document.id, 'req-retry');
    const done = await t.app.get(DocumentsService).get(tenant.id, document.id);
    expect(done.document).toMatchObject({ status: 'processed', chunksDone: 3, chunksTotal: 3 });
    expect(done.counts).toMatchObject({ chunks: 3, entities: 4, edges: 3 });
    // The retry extracted only the two chunks not written.
    const retried = await t.app.get(InferencesRepository).listByRequest(tenant.id, 'req-retry');
    expect(retried.filter((row) => row.stage === 'extract')).toHaveLength(2);
  });

  it('an attempt whose signal aborts (its lease lost) writes no further chunk and ends its calls; the next attempt finishes', async () => {
    const tenant = await createTenant(t.app);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Chunk 1's extraction stays open: it is in flight when the lease is lost.
    scriptExtraction({ 1: () => held });
    const document = await submit(tenant.id);
    const lease = new AbortController();
    const writer = t.app.get(GraphWriter);
    const realWrite = writer.write.bind(writer);
    const spy = jest.spyOn(writer, 'write').mockImplementation(async (db, input) => {
      const result = await realWrite(db, input);
      lease.abort(new LeaseLostError('job of the test')); // right after the first chunk is written
      return result;
    });
    try {
      await expect(t.app.get(DocumentIngester).ingest(tenant.id, document.id, 'req-lost', {}, lease.signal)).rejects.toBeDefined();
      expect(spy).toHaveBeenCalledTimes(1);
      const second = double.requests.find((r) => isExtract(r) && chunkOf(r.body) === 1)!;
      expect(second.clientClosed).toBe(true);
      const ledger = await t.app.get(InferencesRepository).listByRequest(tenant.id, 'req-lost');
      expect(ledger.filter((row) => row.status === 'pending')).toEqual([]);
      expect(await t.app.get(DocumentsRepository).get(tenant.id, document.id)).toMatchObject({ status: 'processing', chunksDone: 1 });
    } finally {
      spy.mockRestore();
      release();
    }

    scriptExtraction();
    await t.app.get(DocumentIngester).ingest(tenant.id, document.id, 'req-next');
    expect((await t.app.get(DocumentsService).get(tenant.id, document.id)).document).toMatchObject({ status: 'processed', chunksDone: 3 });
  });
});
