import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Settings } from '@loci/config';
import { inlineLocalTextWork } from '@loci/llm';
import { questionsInFlight } from '@loci/common';
import { textPdf } from '@loci/testing';
import { similarEarlierNames } from '../graph/similar-names';
import { DEFAULT_UPLOAD_LIMITS, UnreadableFileError, UploadTooLargeError } from '../upload/upload-errors';
import { cpuThreadResourceLimits, CpuPool } from './cpu-pool';
import { CpuTaskLimitError } from './cpu-task-errors';

function settings(ingest: Partial<Settings['ingest']> = {}): Settings {
  return {
    ingest: { cpuThreads: 1, cpuThreadHeapMb: 256, cpuTaskTimeoutMs: 60_000, upload: { ...DEFAULT_UPLOAD_LIMITS, readTimeoutMs: 60_000 }, ...ingest },
  } as Settings;
}

describe('CpuPool', () => {
  const pool = new CpuPool(settings());
  const limits = DEFAULT_UPLOAD_LIMITS;
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
    await expect(pool.pdfToText(textPdf([['Bob lives in Berlin.']]), 'a.pdf', limits)).resolves.toBe('Bob lives in Berlin.');
    const error = await pool.pdfToText(Buffer.from('%PDF-1.4\nnot a pdf body'), 'broken.pdf', limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableFileError);
    expect((error as UnreadableFileError).details).toEqual({ reason: 'corrupt_pdf' });
    expect((error as UnreadableFileError).message).toContain('"broken.pdf"');
  });

  it('refuses HTML nested deeper than the limit, naming the limit, without parsing it whole', async () => {
    await expect(pool.htmlToText(Buffer.from(`<p>Before.</p>${'<div>'.repeat(200)}deep${'</div>'.repeat(200)}<p>After.</p>`), 'ok.html', limits)).resolves.toMatch(
      /Before\.[\s\S]*deep[\s\S]*After\./,
    );
    const started = performance.now();
    const html = Buffer.from(`<p>Before.</p>${'<div>'.repeat(200_000)}deep${'</div>'.repeat(200_000)}<p>After.</p>`);
    const error = await pool.htmlToText(html, 'deep.html', limits).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UploadTooLargeError);
    expect((error as UploadTooLargeError).details).toEqual({ limit: 'depth', max: 256 });
    expect((error as UploadTooLargeError).message).toContain('"deep.html" nests elements more than 256 levels deep');
    // Parsed whole, this took over a minute (htmlparser2's open-element stack is an array it unshifts).
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("refuses HTML whose parse would outgrow its thread's heap before parsing it, the thread living on, and reads what fits", async () => {
    const small = new CpuPool(settings({ cpuThreadHeapMb: 96 }));
    const table = (rows: number) =>
      Buffer.from(`<table>${Array.from({ length: rows }, (_, i) => `<tr><td><span class="name">Person ${i}</span></td><td><a href="/p/${i}">profile</a></td><td>city ${i % 97}</td></tr>\n`).join('')}</table>`);
    try {
      await small.summarize('Alice works at Acme.');
      const threads = () => (small as unknown as { pool: { threads: Array<{ threadId: number }> } }).pool.threads.map((thread) => thread.threadId);
      const before = threads();
      // 2 MB of rows: parsed, they held ~120 MB, past the 96 MB heap; on Node 24 a thread past
      // its heap could abort the whole process instead of ending alone.
      const page = table(18_000);
      const error = await small.htmlToText(page, 'directory.html', limits).catch((e: unknown) => e);
      // Its bytes were moved to the thread, not copied (a 19 MB copy held the request thread ~0.5 s).
      expect(page.byteLength).toBe(0);
      expect(error).toBeInstanceOf(UploadTooLargeError);
      expect((error as UploadTooLargeError).details).toEqual({ limit: 'memory', max: 96 });
      expect(threads()).toEqual(before);
      await expect(small.htmlToText(table(2_000), 'directory.html', limits)).resolves.toMatch(/^Person 0 +profile +city 0\nPerson 1 /);
      expect(threads()).toEqual(before);
    } finally {
      await small.onApplicationShutdown();
    }
  });

  it('stops a task past its time budget, failing that task only', async () => {
    // The budget counts from the task's hand-over, a new thread's start included: under jest a
    // thread compiles its sources with tsx first, seconds at nice 10 on a loaded machine (5 s
    // failed the follow-up task once so). Production's budgets are 120 s and 30 s, over compiled code.
    // A heap the task cannot outgrow in that time: on Node 24 this extraction outgrew 256 MB in ~5 s
    // and the thread died of memory first.
    const strict = new CpuPool(settings({ cpuTaskTimeoutMs: 10_000, cpuThreadHeapMb: 4096 }));
    try {
      const long = Array.from({ length: 300_000 }, (_, i) => `Alice Johnson met Bob number ${i} in Berlin.`).join(' ');
      const slow = await strict.run('extract', long, {}).catch((e: unknown) => e);
      expect(slow).toBeInstanceOf(CpuTaskLimitError);
      expect((slow as CpuTaskLimitError).message).toMatch(/took longer than 10,000 ms/);
      // The pool goes on: the next task gets a new thread.
      await expect(strict.summarize('Alice works at Acme.')).resolves.toBe('Alice works at Acme.');
    } finally {
      await strict.onApplicationShutdown();
    }
  });

  it('gives its threads a heap that Node can stop them at: one outgrowing it ends alone, every time', async () => {
    // Objects that all survive: each scavenge moves a whole semi-space of them to the old
    // generation. With Node 24's own young generation (semi-spaces of 64 MB on CI's machine, past
    // the 16 MB Node grants a thread at its limit) this aborted the whole process on 4 of 6 tries.
    for (let attempt = 0; attempt < 3; attempt++) {
      const thread = new Worker('const kept = []; for (let i = 0; ; i++) kept.push({ i, name: `Person ${i}`, children: [i] });', {
        eval: true,
        resourceLimits: cpuThreadResourceLimits(64),
      });
      const error = await new Promise<unknown>((resolve) => thread.once('error', resolve));
      expect(error).toMatchObject({ code: 'ERR_WORKER_OUT_OF_MEMORY' });
    }
  });

  it("survives a thread that dies holding no task: piscina's 'error' event is logged, not thrown", async () => {
    const own = new CpuPool(settings());
    try {
      await own.summarize('Alice works at Acme.');
      const threads = (own as unknown as { pool: { emit(event: string, error: Error): boolean } }).pool;
      // An EventEmitter with no 'error' listener throws (and, from a worker's event, ends the process).
      expect(() => threads.emit('error', new Error('Worker terminated due to reaching memory limit: JS heap out of memory'))).not.toThrow();
      await expect(own.summarize('Bob works at Globex.')).resolves.toBe('Bob works at Globex.');
    } finally {
      await own.onApplicationShutdown();
    }
  });
});

describe('CpuPool beside questions', () => {
  const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const watched = <T>(promise: Promise<T>) => {
    const state: { value?: T } = {};
    void promise.then((value) => (state.value = value));
    return state;
  };

  it("holds batch work while a question runs, never the question's own tasks, and starts it when the question ends", async () => {
    const own = new CpuPool(settings({ batchPauseMaxMs: 60_000 }));
    try {
      await own.summarize('Alice works at Acme.'); // the thread is up
      const end = questionsInFlight.begin();
      const extraction = watched(own.extract('Alice Johnson works at Acme Corporation.', {}));
      // The question's keywords run at once, on the thread the extraction has not taken.
      await expect(own.keywords('Where does Alice Johnson work?')).resolves.toMatchObject({ low_level: expect.any(Array) });
      await tick(500);
      expect(extraction.value).toBeUndefined();
      end();
      for (let waited = 0; !extraction.value && waited < 20_000; waited += 50) await tick(50);
      expect(extraction.value?.relations).toEqual([expect.objectContaining({ source: 'Alice Johnson', target: 'Acme Corporation' })]);
    } finally {
      await own.onApplicationShutdown();
    }
  });

  it('lets batch work go on after LOCI_BATCH_PAUSE_MAX_MS: questions that never stop cannot stop ingestion', async () => {
    const own = new CpuPool(settings({ batchPauseMaxMs: 200 }));
    const end = questionsInFlight.begin();
    try {
      await expect(own.summarize('Alice works at Acme.')).resolves.toBe('Alice works at Acme.');
      await expect(own.pdfToText(textPdf([['Alice works at Acme.'], ['Bob lives in Berlin.'], ['Carol knows Dave.']]), 'three.pdf', DEFAULT_UPLOAD_LIMITS)).resolves.toMatch(/Alice[\s\S]*Bob[\s\S]*Carol/);
    } finally {
      end();
      await own.onApplicationShutdown();
    }
  });

  it("pauses a PDF being read on its thread between pages while a question runs", async () => {
    const own = new CpuPool(settings({ batchPauseMaxMs: 60_000 }));
    try {
      await own.summarize('Alice works at Acme.');
      // Straight to the thread, past the wait before it (that one is the first test's): the
      // question starts while the thread reads, and the thread's pause point before page 1 holds it.
      const threads = (own as unknown as { threads(): { run(task: unknown): Promise<unknown> } }).threads();
      const end = questionsInFlight.begin();
      const pdf = textPdf([['Alice works at Acme.'], ['Bob lives in Berlin.']]);
      const read = watched(threads.run({ task: 'pdfText', args: [new Uint8Array(pdf), DEFAULT_UPLOAD_LIMITS] }));
      await tick(1_500);
      expect(read.value).toBeUndefined();
      end();
      for (let waited = 0; !read.value && waited < 20_000; waited += 50) await tick(50);
      expect(read.value).toEqual({ text: expect.stringMatching(/Alice works at Acme\.\s+Bob lives in Berlin\./) });
    } finally {
      await own.onApplicationShutdown();
    }
  });
});

/** Each of this process's threads and its nice value (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceValues(): Array<{ tid: string; nice: number }> {
  return readdirSync('/proc/self/task').map((tid) => ({ tid, nice: Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]) }));
}

// Per-thread nice values are Linux's (thread-priority.ts); elsewhere the pool leaves priorities alone.
const onLinux = process.platform === 'linux' ? describe : describe.skip;
onLinux('CpuPool thread priority', () => {
  it('runs its threads at LOCI_CPU_THREAD_NICE, the request thread at its own priority', async () => {
    // Threads of the pools of earlier tests may still be exiting (at their nice value): only the
    // threads this pool starts are looked at.
    const before = new Set(threadNiceValues().map((thread) => thread.tid));
    const niced = new CpuPool(settings({ cpuThreads: 2, cpuThreadNice: 10 }));
    try {
      await Promise.all([niced.summarize('Alice works at Acme.'), niced.summarize('Bob lives in Berlin.')]);
      const started = threadNiceValues().filter((thread) => !before.has(thread.tid));
      expect(started.filter((thread) => thread.nice === 10).length).toBeGreaterThanOrEqual(1);
      expect(getPriority()).toBe(0);
    } finally {
      await niced.onApplicationShutdown();
    }
  });
});
