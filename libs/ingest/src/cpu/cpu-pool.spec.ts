import type { Settings } from '@loci/config';
import { inlineLocalTextWork } from '@loci/llm';
import { textPdf } from '@loci/testing';
import { similarEarlierNames } from '../graph/similar-names';
import { UnreadableFileError } from '../upload/upload-errors';
import { CpuPool } from './cpu-pool';

describe('CpuPool', () => {
  const pool = new CpuPool({ ingest: { cpuThreads: 1 } } as Settings);
  afterAll(() => pool.onApplicationShutdown());

  it('chunks, extracts and summarizes on a worker thread, with the same results as inline', async () => {
    const pieces = await pool.run('pieces', 'Alice works at Acme since 2021.', { keepWholeIfFits: false, chunkTokens: 100, chunkOverlapTokens: 10 });
    expect(pieces).toEqual([{ index: 0, text: 'Alice works at Acme since 2021.', tokenCount: expect.any(Number) }]);
    const extraction = await pool.extract('Alice Johnson works at Acme Corporation.', {});
    expect(extraction.relations).toEqual([expect.objectContaining({ source: 'Alice Johnson', relation: 'works_at', target: 'Acme Corporation' })]);
    await expect(pool.summarize('Alice works at Acme.')).resolves.toBe('Alice works at Acme.');
  });

  it('finds query keywords, answers, embeds, meters and compares names there, as inline', async () => {
    const question = 'Where does Alice Johnson work?';
    await expect(pool.keywords(question)).resolves.toEqual(await inlineLocalTextWork.keywords(question));
    const sources = [{ id: 's1', text: 'Alice Johnson works at Acme. Bob lives in Berlin.' }];
    await expect(pool.answerWithHashing(question, sources, 256)).resolves.toEqual(await inlineLocalTextWork.answerWithHashing(question, sources, 256));
    await expect(pool.hashEmbed(['Alice Johnson', 'Acme'], 64)).resolves.toEqual(await inlineLocalTextWork.hashEmbed(['Alice Johnson', 'Acme'], 64));
    const texts = ['Alice Johnson', JSON.stringify({ entities: [{ name: 'Acme', type: 'organization' }] }), ''];
    await expect(pool.countTokens(texts)).resolves.toEqual(await inlineLocalTextWork.countTokens(texts));
    await expect(pool.similarEarlierNames([[1, 0], [1, 0.1], [0, 1]], 0.9)).resolves.toEqual([[], [{ index: 0, similarity: expect.any(Number) }], []]);
    // Over a few slices of packing, with vectors of different widths: as inline, similarity for similarity.
    const vectors = Array.from({ length: 150 }, (_, i) => Array.from({ length: 16 + (i % 3) }, (_, k) => Math.sin(i * 0.37 + k) + (i % 7 === 0 ? 3 : 0)));
    await expect(pool.similarEarlierNames(vectors, 0.8)).resolves.toEqual(similarEarlierNames(vectors, 0.8));
  });

  it('reads PDFs there, and says why one is unreadable with the same error as inline', async () => {
    await expect(pool.pdfToText(textPdf([['Bob lives in Berlin.']]), 'a.pdf')).resolves.toBe('Bob lives in Berlin.');
    const error = await pool.pdfToText(Buffer.from('%PDF-1.4\nnot a pdf body'), 'broken.pdf').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableFileError);
    expect((error as UnreadableFileError).details).toEqual({ reason: 'corrupt_pdf' });
    expect((error as UnreadableFileError).message).toContain('"broken.pdf"');
  });

  it('turns HTML nested far deeper than any page into text instead of overflowing the stack', async () => {
    const html = `<p>Before.</p>${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}<p>After.</p>`;
    const text = await pool.htmlToText(html);
    expect(text).toContain('Before.');
    expect(text).toContain('After.');
  });
});
