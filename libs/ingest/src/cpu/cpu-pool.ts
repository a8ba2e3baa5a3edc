import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Piscina } from 'piscina';
import { Settings, SETTINGS } from '@loci/config';
import type { CitableSource, Extraction, HashedAnswer, Keywords, LocalExtractOptions, LocalTextWork } from '@loci/llm';
import { packVectors, type SimilarName } from '../graph/similar-names';
import { UnreadableFileError } from '../upload/upload-errors';
import type { UploadParsers } from '../upload/upload-text';
import type { CpuTaskName, CpuTaskRequest, CpuTasks } from './cpu-tasks';
import { cpuWorkerEntry } from './cpu-worker-entry';

/** Threads that have had no task for this long exit (each holds the NLP lexicon, ~35 MB). */
const IDLE_THREAD_MS = 60_000;

/**
 * Worker threads for the CPU-bound steps over user text (chunking, offline extraction,
 * summaries, query keywords and answers, comparing an extraction's names, HTML and PDF text), so that ingesting a megabyte in the API process never holds the
 * event loop that answers every tenant's requests. Threads start on first use: a process that
 * never needs them never pays for them. LOCI_CPU_THREADS bounds them; tasks beyond wait in order.
 */
@Injectable()
export class CpuPool implements LocalTextWork, UploadParsers, OnApplicationShutdown {
  private pool?: Piscina;

  constructor(@Inject(SETTINGS) private readonly settings: Settings) {}

  run<K extends CpuTaskName>(task: K, ...args: Parameters<CpuTasks[K]>): Promise<Awaited<ReturnType<CpuTasks[K]>>> {
    const request: CpuTaskRequest = { task, args };
    return this.threads().run(request);
  }

  /**
   * similarEarlierNames on a thread, the vectors packed a slice at a time and their buffer
   * transferred: cloning ~1 300 vectors for the thread held the event loop for ~0.1–0.25 s.
   */
  async similarEarlierNames(vectors: number[][], threshold: number): Promise<SimilarName[][]> {
    const packed = await packVectors(vectors);
    const request: CpuTaskRequest = { task: 'similarEarlierNames', args: [packed, threshold] };
    return this.threads().run(request, { transferList: [packed.values.buffer as ArrayBuffer, packed.lengths.buffer as ArrayBuffer] });
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

  htmlToText(html: string): Promise<string> {
    return this.run('htmlToText', html);
  }

  async pdfToText(buffer: Buffer, fileName: string): Promise<string> {
    const result = await this.run('pdfText', buffer);
    if ('unreadable' in result) throw new UnreadableFileError(fileName, result.unreadable);
    return result.text;
  }

  async onApplicationShutdown(): Promise<void> {
    // Lets running tasks finish (an ingestion being stopped awaits them), then ends the threads.
    await this.pool?.close();
    this.pool = undefined;
  }

  private threads(): Piscina {
    if (!this.pool) {
      const entry = cpuWorkerEntry();
      this.pool = new Piscina({
        filename: entry.filename,
        execArgv: entry.execArgv,
        env: entry.env,
        minThreads: 0,
        maxThreads: this.settings.ingest.cpuThreads,
        idleTimeout: IDLE_THREAD_MS,
      });
    }
    return this.pool;
  }
}
