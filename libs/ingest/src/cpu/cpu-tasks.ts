// Deep paths rather than `@loci/llm`: this module is loaded by every worker thread, which needs
// the offline NLP and nothing of the model layer's SDKs, NestJS or database code.
import { extractLocally, type LocalExtractOptions } from '../../../llm/src/local/extractor';
import { answerWithHashingEmbedder } from '../../../llm/src/local/hashed-answer';
import { LocalHashingEmbedder } from '../../../llm/src/local/hashing.embedder';
import { keywordsLocally } from '../../../llm/src/local/keywords';
import { summarizeLocally } from '../../../llm/src/local/summarizer';
import { countTokens } from '../../../llm/src/metering/token-counter';
import { type PackedVectors, similarEarlierNames, unpackVectors } from '../graph/similar-names';
import { piecesOf } from '../pipeline/pieces';
import { htmlFileToText } from '../upload/html-text';
import { pdfToText } from '../upload/pdf-text';
import { type UploadLimits, type UploadRefusal, uploadRefusalOf } from '../upload/upload-errors';

/** What an uploaded file yields in a thread: its text, or why it is refused (errors lose their class in transit). */
export type UploadTextResult = { text: string } | { refused: UploadRefusal };

async function uploadText(read: () => string | Promise<string>): Promise<UploadTextResult> {
  try {
    return { text: await read() };
  } catch (error) {
    const refused = uploadRefusalOf(error);
    if (refused) return { refused };
    throw error;
  }
}

/**
 * The CPU-bound steps over user text that run on worker threads (CpuPool). Arguments and results
 * cross threads by structured clone: plain data only.
 */
export const CPU_TASKS = {
  pieces: piecesOf,
  extract: (text: string, options: LocalExtractOptions) => extractLocally(text, options),
  summarize: (text: string) => summarizeLocally(text),
  keywords: (question: string) => keywordsLocally(question),
  answerWithHashing: answerWithHashingEmbedder,
  hashEmbed: (texts: string[], dimensions: number) => new LocalHashingEmbedder(dimensions).embedHere(texts),
  countTokens: (texts: string[]) => texts.map(countTokens),
  /** similarEarlierNames of vectors packed by packVectors (transferred, not copied). */
  similarEarlierNames: (vectors: PackedVectors, threshold: number) => similarEarlierNames(unpackVectors(vectors), threshold),
  /** The text of an HTML file's bytes, decoded here; within the thread's heap (`heapMb`), or refused before it is parsed. */
  htmlText: (bytes: Uint8Array, limits: UploadLimits, heapMb: number) =>
    uploadText(() => htmlFileToText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'upload.html', { maxDepth: limits.maxHtmlDepth, heapMb })),
  pdfText: (bytes: Uint8Array, limits: UploadLimits) =>
    uploadText(() => pdfToText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 'upload.pdf', limits)),
};

export type CpuTasks = typeof CPU_TASKS;
export type CpuTaskName = keyof CpuTasks;

export interface CpuTaskRequest {
  task: CpuTaskName;
  args: unknown[];
}

export function runCpuTask({ task, args }: CpuTaskRequest): unknown {
  const run = CPU_TASKS[task] as (...args: unknown[]) => unknown;
  if (typeof run !== 'function') throw new Error(`unknown CPU task "${String(task)}"`);
  return run(...args);
}
