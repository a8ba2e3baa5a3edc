import { openAsBlob } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { createLociClient, errorMessage, type LociClient, type Schemas } from '@loci/client';
import type { CandidateFile, SkippedFile } from './collect-files';

export type DocumentStatus = 'pending' | 'processing' | 'processed' | 'failed' | 'deferred';
/** How a file ended. `already_uploaded`: the server had the same content (200) and it is processed. */
export type Outcome = 'processed' | 'already_uploaded' | 'failed' | 'deferred' | 'timed_out';

export interface DocumentCounts {
  chunks: number;
  entities: number;
  edges: number;
}

/** One file's state, handed to the progress view on every change. */
export interface FileProgress {
  file: CandidateFile;
  phase: 'queued' | 'uploading' | DocumentStatus;
  documentId?: string;
  /** The server answered 200: this content was uploaded before. */
  existing: boolean;
  chunksDone: number;
  chunksTotal: number;
  counts?: DocumentCounts;
  /** Unset until the file is done; stays unset for files a stopped run never finished. */
  outcome?: Outcome;
  error?: string;
}

export interface BulkUploadOptions {
  url: string;
  apiKey: string;
  /** Documents in flight at once (uploaded and not yet finished), so a big folder cannot flood the queue. */
  concurrency: number;
  pollMs: number;
  /** The longest wait for one document, counted from its upload. */
  timeoutMs: number;
  onUpdate?: (state: FileProgress) => void;
  /** Stops the run (Ctrl-C); unfinished files are left without an outcome. */
  signal?: AbortSignal;
}

export interface BulkUploadResult {
  files: FileProgress[];
  skipped: SkippedFile[];
  /**
   * Why the run stopped early, if it did: `auth` the key was refused, `server` nothing (or no Loci)
   * answered, `quota` an ingestion quota of the tenant is used up (every other file would be refused).
   */
  aborted?: { reason: 'auth' | 'server' | 'quota' | 'interrupted'; message: string };
}

interface DocumentBody {
  document_id: string;
  status: DocumentStatus;
  error?: string | null;
  progress?: { chunks_done: number; chunks_total: number };
  counts?: DocumentCounts;
}

/** A non-2xx answer, with the server's own message (any of its three error shapes). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(`HTTP ${status}: ${message}`);
  }
}

/** fetch() failed outright: nothing answered (refused, DNS, reset). */
class NetworkError extends Error {}

/** Thrown to stop every file at once: the key is refused, so every other request would be too. */
class StopRun extends Error {
  constructor(readonly reason: 'auth' | 'server' | 'quota', message: string) {
    super(message);
  }
}

const RETRYABLE = new Set([429, 502, 503, 504]);

/**
 * Refusals by an ingestion quota that every other file would meet too: the run stops rather than
 * retrying each file for minutes (a day's quota passes at the next UTC midnight). A file larger
 * than a whole day's text is refused with 413 and fails alone.
 */
const QUOTAS_USED_UP: Readonly<Record<string, string>> = {
  '429 daily_document_quota_exceeded': 'documents of the day are used up until the next UTC midnight',
  '429 daily_ingest_quota_exceeded': 'text of the day is used up until the next UTC midnight',
  '413 storage_quota_exceeded': 'stored text is at its quota: delete documents, or ask an operator to raise max_stored_mb',
};

const errorCode = (body: unknown) => (body as { error?: { code?: unknown } } | undefined)?.error?.code;
const UPLOAD_ATTEMPTS = 4;
const FINAL: ReadonlySet<string> = new Set(['processed', 'failed', 'deferred']);

/** Uploads the files with bounded concurrency and waits for each to be processed. Never throws for one file's trouble. */
export async function uploadAll(files: CandidateFile[], skipped: SkippedFile[], options: BulkUploadOptions): Promise<BulkUploadResult> {
  const base = options.url.replace(/\/+$/, '');
  const controller = new AbortController();
  const stopOnSignal = () => controller.abort();
  options.signal?.addEventListener('abort', stopOnSignal);
  if (options.signal?.aborted) controller.abort();
  const result: BulkUploadResult = { files: files.map((file) => ({ file, phase: 'queued', existing: false, chunksDone: 0, chunksTotal: 0 })), skipped };
  const notify = (state: FileProgress) => options.onUpdate?.(state);

  const api = createLociClient({ baseUrl: base, apiKey: options.apiKey, headers: { accept: 'application/json' } });
  /** One call of the typed client; the error of a refused key stops the run, others are HttpErrors. */
  const call = async (send: (api: LociClient, signal: AbortSignal) => Promise<{ data?: unknown; error?: unknown; response: Response }>) => {
    let result: Awaited<ReturnType<typeof send>>;
    try {
      result = await send(api, controller.signal);
    } catch (error) {
      if (controller.signal.aborted) throw error;
      throw new NetworkError(`Cannot reach ${base}: ${networkReason(error)}`);
    }
    const { data, error, response } = result;
    const message = serverMessage(error, response.statusText);
    if (response.status === 401 || response.status === 403) {
      throw new StopRun('auth', `The server refused the API key (HTTP ${response.status}: ${message}). Check --tenant-key / LOCI_API_KEY.`);
    }
    const quota = QUOTAS_USED_UP[`${response.status} ${errorCode(error)}`];
    if (quota) throw new StopRun('quota', `The tenant's ${quota} (HTTP ${response.status}: ${message}). Files uploaded so far are kept and ingested; run again to send the rest (those already sent are not counted twice).`);
    if (!response.ok) throw Object.assign(new HttpError(response.status, message), { retryAfter: response.headers.get('retry-after') });
    return { status: response.status, body: data };
  };

  const upload = async (state: FileProgress) => {
    for (let attempt = 1; ; attempt++) {
      // A fresh body per attempt; re-sending the same content is safe, the server deduplicates it.
      const form = new FormData();
      form.append('file', await openAsBlob(state.file.path, { type: state.file.contentType }), state.file.name.split('/').pop());
      form.append('name', state.file.name);
      try {
        // The multipart form of the upload (the document's `DocumentUpload`), sent as the FormData it is.
        const { status, body } = await call((api, signal) =>
          api.POST('/v1/documents', { body: form as unknown as Schemas['CreateDocumentRequest'], bodySerializer: (b) => b as unknown as FormData, signal }),
        );
        return { status, body: body as DocumentBody };
      } catch (error) {
        const retryable = error instanceof NetworkError || (error instanceof HttpError && RETRYABLE.has(error.status));
        // Still nothing answering after the retries: every other file would fare the same.
        if (error instanceof NetworkError && attempt >= UPLOAD_ATTEMPTS) throw new StopRun('server', error.message);
        if (!retryable || attempt >= UPLOAD_ATTEMPTS) throw error;
        await delay(retryDelayMs(error, attempt), undefined, { signal: controller.signal });
      }
    }
  };

  const applyDocument = (state: FileProgress, doc: DocumentBody) => {
    state.phase = doc.status;
    state.chunksDone = doc.progress?.chunks_done ?? state.chunksDone;
    state.chunksTotal = doc.progress?.chunks_total ?? state.chunksTotal;
    state.counts = doc.counts ?? state.counts;
    state.error = doc.error ?? undefined;
  };

  const handle = async (state: FileProgress) => {
    state.phase = 'uploading';
    notify(state);
    try {
      const submitted = await upload(state);
      state.documentId = submitted.body.document_id;
      state.existing = submitted.status === 200;
      state.phase = submitted.body.status;
      notify(state);
      const deadline = Date.now() + options.timeoutMs;
      let lastPollError: string | undefined;
      for (;;) {
        try {
          const documentId = state.documentId;
          applyDocument(state, (await call((api, signal) => api.GET('/v1/documents/{documentId}', { params: { path: { documentId } }, signal }))).body as DocumentBody);
          lastPollError = undefined;
          // A final status is shown once, with its outcome, by the finally below.
          if (!FINAL.has(state.phase)) notify(state);
        } catch (error) {
          // A 5xx, 429 or dropped connection while polling is the server being busy or restarting:
          // keep waiting until the deadline rather than failing a document that may well finish.
          const transient = error instanceof NetworkError || (error instanceof HttpError && (error.status >= 500 || error.status === 429));
          if (!transient) throw error;
          lastPollError = error.message;
        }
        if (FINAL.has(state.phase)) break;
        if (Date.now() + options.pollMs > deadline) {
          state.outcome = 'timed_out';
          state.error = `still ${state.phase} after ${Math.round(options.timeoutMs / 1000)} s${lastPollError ? ` (last poll: ${lastPollError})` : ''}`;
          return;
        }
        await delay(options.pollMs, undefined, { signal: controller.signal });
      }
      if (state.phase === 'processed') state.outcome = state.existing ? 'already_uploaded' : 'processed';
      else state.outcome = state.phase === 'deferred' ? 'deferred' : 'failed';
      // Uploading the same content again only returns the old failed document, so say how to rerun it.
      if (state.outcome === 'failed' && state.existing) {
        state.error = `${state.error ?? 'failed'} (uploaded before; retry it with POST /v1/documents/${state.documentId}/retry)`;
      }
    } catch (error) {
      if (error instanceof StopRun) {
        result.aborted ??= { reason: error.reason, message: error.message };
        controller.abort();
      } else if (!controller.signal.aborted) {
        state.outcome = 'failed';
        state.error = error instanceof Error ? error.message : String(error);
      }
    } finally {
      if (state.outcome) notify(state);
    }
  };

  try {
    // One cheap request first, so a wrong URL or key stops the run before any upload, in one message.
    await call((api, signal) => api.GET('/v1/documents', { params: { query: { limit: 1 } }, signal }));
    await runPool(result.files, options.concurrency, handle, controller.signal);
  } catch (error) {
    if (error instanceof StopRun) result.aborted = { reason: error.reason, message: error.message };
    else if (error instanceof NetworkError) result.aborted = { reason: 'server', message: error.message };
    else if (error instanceof HttpError) result.aborted = { reason: 'server', message: `${base} does not answer as a Loci server: ${error.message}` };
    else if (!controller.signal.aborted) throw error;
  } finally {
    options.signal?.removeEventListener('abort', stopOnSignal);
  }
  if (options.signal?.aborted && !result.aborted) {
    result.aborted = { reason: 'interrupted', message: 'interrupted (Ctrl-C); unfinished files were left as they are on the server.' };
  }
  return result;
}

/** Runs `work` over the items, at most `limit` at a time, starting no new item once stopped. */
async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>, signal: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
}

/** Retry-After when the server names it (seconds), else exponential backoff; capped so a run never stalls long. */
function retryDelayMs(error: unknown, attempt: number): number {
  const header = (error as { retryAfter?: string | null }).retryAfter;
  const seconds = header ? Number(header) : NaN;
  const ms = Number.isFinite(seconds) ? seconds * 1000 : 500 * 2 ** attempt;
  return Math.min(Math.max(ms, 100), 30_000);
}

/** The server's message (with its request id, for support), else the start of a body that is not Loci's. */
function serverMessage(body: unknown, statusText: string): string {
  const message = errorMessage(body)?.slice(0, 200) || statusText || 'no message';
  const requestId = (body as { request_id?: unknown } | undefined)?.request_id;
  return typeof requestId === 'string' ? `${message} (request ${requestId})` : message;
}

/** fetch() hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export interface Summary {
  counts: Record<Outcome | 'skipped' | 'not_finished', number>;
  /**
   * Chunks, entities and edges of the documents this run processed: not those of documents the
   * server had already (their graph was made by an earlier run).
   */
  totals: DocumentCounts;
}

export function summarize(result: BulkUploadResult): Summary {
  const counts = { processed: 0, already_uploaded: 0, failed: 0, deferred: 0, timed_out: 0, skipped: result.skipped.length, not_finished: 0 };
  const totals = { chunks: 0, entities: 0, edges: 0 };
  for (const state of result.files) {
    counts[state.outcome ?? 'not_finished']++;
    if (state.outcome === 'processed' && state.counts) {
      totals.chunks += state.counts.chunks;
      totals.entities += state.counts.entities;
      totals.edges += state.counts.edges;
    }
  }
  return { counts, totals };
}

/** 0 every file processed; 2 the key was refused (fix the invocation); 1 anything else short of that. */
export function exitCodeOf(result: BulkUploadResult): 0 | 1 | 2 {
  if (result.aborted?.reason === 'auth') return 2;
  if (result.aborted) return 1;
  const ok = result.files.every((f) => f.outcome === 'processed' || f.outcome === 'already_uploaded');
  return ok ? 0 : 1;
}
