import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Piscina } from 'piscina';
import { currentTenant, questionsInFlight } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import type { CitableSource, Extraction, HashedAnswer, Keywords, LocalExtractOptions, LocalTextWork } from '@loci/llm';
import { packVectors, type SimilarName } from '../graph/similar-names';
import { UploadLimits, uploadRefusalError, UploadTooLargeError } from '../upload/upload-errors';
import type { UploadParsers } from '../upload/upload-text';
import { asCpuTaskLimit, CpuTaskLimitError } from './cpu-task-errors';
import type { CpuTaskName, CpuTaskRequest, CpuTasks, UploadTextResult } from './cpu-tasks';
import type { CpuThreadData } from './cpu-worker';
import { cpuWorkerEntry, letThreadsSizeTheirHeaps } from './cpu-worker-entry';
import { CpuLane, ThreadSlots } from '@loci/common';

/**
 * Batch work: a document's steps and an upload's text, never a question's. Each waits to start
 * while questions run (at most LOCI_BATCH_PAUSE_MAX_MS), before it takes a thread, so the
 * question's own tasks and PostgreSQL's work for it have the cores; a PDF pauses again between
 * its pages (pause-points.ts).
 */
const BATCH_TASKS: ReadonlySet<CpuTaskName> = new Set(['pieces', 'extract', 'summarize', 'similarEarlierNames', 'htmlText', 'pdfText']);

/**
 * The least a PDF reads between two of its pauses, in ms: under a steady flow of questions it
 * still gets BATCH_MIN_RUN_MS of every LOCI_BATCH_PAUSE_MAX_MS + BATCH_MIN_RUN_MS (a sixth at 100).
 */
const BATCH_MIN_RUN_MS = 20;

/** Threads that have had no task for this long exit (each holds the NLP lexicon, ~35 MB). */
const IDLE_THREAD_MS = 60_000;

/**
 * The young generation of each thread, in MB (three semi-spaces of 8 MB). A thread that reaches
 * its heap limit is given 16 MB more to finish the garbage collection under way while Node stops
 * it (node_worker.cc, kExtraHeapAllowance); a collection that moves more than that into the old
 * generation at once aborts the whole process instead ("Reached heap limit", nodejs/node#47224).
 * A scavenge moves at most one semi-space. Node 20 sized them 16 MB; Node 22 and later size them
 * from the machine's memory, 64 MB on CI's (a 448 MB heap for a thread given 256), and a thread
 * outgrowing its heap on Node 24 took the API down on most tries. 8 MB stays within the 16 with
 * room; tasks measured no slower than with 16 or 64.
 */
const THREAD_YOUNG_GENERATION_MB = 24;

/** The heap of each CPU thread: `heapMb` of old generation (LOCI_CPU_THREAD_HEAP_MB), a young one that lets Node stop it there. */
export function cpuThreadResourceLimits(heapMb: number): { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number } {
  return { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB };
}

/**
 * The memory of an uploaded file's bytes, to be moved to the thread rather than copied: cloning
 * 19 MB for it held the request thread ~0.5 s on a loaded machine (piscina's postTask, profiled),
 * every tenant's requests waiting. Moved only when the bytes are the whole of their ArrayBuffer
 * (multer's for a file of any size); a small Buffer shares Node's pool with others, which moving
 * it would empty, and is copied, which costs nothing to speak of.
 */
function handedOver(bytes: Buffer): ArrayBuffer[] | undefined {
  const memory = bytes.buffer;
  return memory instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === memory.byteLength ? [memory] : undefined;
}

/**
 * Worker threads for the CPU-bound steps over user text (chunking, offline extraction,
 * summaries, query keywords and answers, comparing an extraction's names, HTML and PDF text), so that ingesting a megabyte in the API process never holds the
 * event loop that answers every tenant's requests. Threads start on first use: a process that
 * never needs them never pays for them. LOCI_CPU_THREADS bounds them; tasks beyond wait, each
 * tenant's in order and the tenants in turn (ThreadSlots). Each task is bounded: in time (LOCI_CPU_TASK_TIMEOUT_MS, an upload's text
 * LOCI_UPLOAD_READ_TIMEOUT_MS; piscina's abort stops the thread) and in heap (each thread's own
 * resourceLimits); a task past either fails with CpuTaskLimitError, and the pool goes on.
 */
@Injectable()
export class CpuPool implements LocalTextWork, UploadParsers, OnApplicationShutdown {
  private readonly logger = new Logger('CpuPool');
  private pool?: Piscina;
  private readonly slots: ThreadSlots;

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {
    this.slots = new ThreadSlots(settings.ingest.cpuThreads);
  }

  run<K extends CpuTaskName>(task: K, ...args: Parameters<CpuTasks[K]>): Promise<Awaited<ReturnType<CpuTasks[K]>>> {
    return this.bounded({ task, args }, 'other', this.settings.ingest.cpuTaskTimeoutMs);
  }

  /**
   * similarEarlierNames on a thread, the vectors packed a slice at a time and their buffer
   * transferred: cloning ~1 300 vectors for the thread held the event loop for ~0.1–0.25 s.
   */
  async similarEarlierNames(vectors: number[][], threshold: number): Promise<SimilarName[][]> {
    const packed = await packVectors(vectors);
    const request: CpuTaskRequest = { task: 'similarEarlierNames', args: [packed, threshold] };
    return this.bounded(request, 'other', this.settings.ingest.cpuTaskTimeoutMs, [packed.values.buffer as ArrayBuffer, packed.lengths.buffer as ArrayBuffer]);
  }

  extract(text: string, options: LocalExtractOptions): Promise<Extraction> {
    return this.run('extract', text, options);
  }

  summarize(text: string): Promise<string> {
    return this.run('summarize', text);
  }

  keywords(question: string): Promise<Keywords> {
    return this.run('keywords', question);
  }

  hashEmbed(texts: string[], dimensions: number): Promise<{ vectors: number[][]; usage: { inputTokens: number } }> {
    return this.run('hashEmbed', texts, dimensions);
  }

  answerWithHashing(question: string, sources: CitableSource[], dimensions: number): Promise<HashedAnswer> {
    return this.run('answerWithHashing', question, sources, dimensions);
  }

  countTokens(texts: string[]): Promise<number[]> {
    return this.run('countTokens', texts);
  }

  /** The file's bytes are handed to the thread (see handedOver): the caller reads them no more. */
  htmlToText(buffer: Buffer, fileName: string, limits: UploadLimits): Promise<string> {
    return this.uploadText({ task: 'htmlText', args: [buffer, limits, this.settings.ingest.cpuThreadHeapMb] }, fileName, handedOver(buffer));
  }

  /** The file's bytes are handed to the thread (see handedOver): the caller reads them no more. */
  pdfToText(buffer: Buffer, fileName: string, limits: UploadLimits): Promise<string> {
    return this.uploadText({ task: 'pdfText', args: [buffer, limits] }, fileName, handedOver(buffer));
  }

  /** An upload's text, its refusals (and the pool's bounds) as the errors the API answers with. */
  private async uploadText(request: CpuTaskRequest, fileName: string, transferList?: ArrayBuffer[]): Promise<string> {
    let result: UploadTextResult;
    try {
      result = await this.bounded(request, 'upload', this.settings.ingest.upload.readTimeoutMs, transferList);
    } catch (error) {
      if (error instanceof CpuTaskLimitError) throw new UploadTooLargeError(fileName, error.limit, error.max);
      throw error;
    }
    if ('refused' in result) throw uploadRefusalError(fileName, result.refused);
    return result.text;
  }

  /** Runs a task once a thread is free for it, within its time budget and the thread's heap. */
  private async bounded<T>(request: CpuTaskRequest, lane: CpuLane, timeoutMs: number, transferList?: ArrayBuffer[]): Promise<T> {
    if (BATCH_TASKS.has(request.task)) await questionsInFlight.quiet(this.settings.ingest.batchPauseMaxMs);
    // Whose work this is (the request's or the job's tenant): threads go to tenants in turn.
    const release = await this.slots.acquire(lane, currentTenant());
    try {
      return (await this.threads().run(request, { transferList, signal: AbortSignal.timeout(timeoutMs) })) as T;
    } catch (error) {
      throw asCpuTaskLimit(error, request.task, { timeoutMs, heapMb: this.settings.ingest.cpuThreadHeapMb });
    } finally {
      release();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // Lets running tasks finish (an ingestion being stopped awaits them), then ends the threads.
    await this.pool?.close();
    this.pool = undefined;
  }

  private threads(): Piscina {
    if (!this.pool) {
      const entry = cpuWorkerEntry();
      letThreadsSizeTheirHeaps();
      this.pool = new Piscina({
        filename: entry.filename,
        execArgv: entry.execArgv,
        env: entry.env,
        minThreads: 0,
        maxThreads: this.settings.ingest.cpuThreads,
        idleTimeout: IDLE_THREAD_MS,
        // A heap of each thread's own: V8's --max-old-space-size is per process, so a thread
        // would get the request thread's (npm start: 256 MB) and die of what it reads.
        resourceLimits: cpuThreadResourceLimits(this.settings.ingest.cpuThreadHeapMb),
        // Each thread lowers its own priority as it starts (thread-priority.ts).
        // …and steps aside for questions at a long task's pause points (pause-points.ts).
        workerData: {
          nice: this.settings.ingest.cpuThreadNice,
          questions: questionsInFlight.buffer,
          pause: {
            maxPauseMs: this.settings.ingest.batchPauseMaxMs,
            minRunMs: BATCH_MIN_RUN_MS,
            // A quarter of the shortest time budget: what pauses take, the task's own run cannot.
            maxTotalMs: Math.min(this.settings.ingest.cpuTaskTimeoutMs, this.settings.ingest.upload.readTimeoutMs) / 4,
          },
        } satisfies CpuThreadData,
      });
      // A thread that dies holding no task (one stopped at its time budget, still running out of
      // heap as it is terminated) is reported by piscina as an 'error' event on the pool; with no
      // listener that event ends the process, every tenant's requests with it (seen once in CI on
      // Node 24). Its task has already failed on its own; the pool starts another thread.
      this.pool.on('error', (error: unknown) => this.logger.warn(`a CPU thread ended outside any task: ${error instanceof Error ? error.message : String(error)}`));
    }
    return this.pool;
  }
}
