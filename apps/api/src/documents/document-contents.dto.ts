import { z } from 'zod';
import type { ChunkRecord } from '@loci/db';
import type { Job } from '@loci/ingest';
import { named } from '@loci/http';
import { pageQuery } from '../admin/admin.dto';
import { entityResponse, factResponse } from '../graph/graph-browse.dto';

/** A chunk's id in a query string: digits, like the ids in paths. */
const chunkId = z.string().regex(/^\d{1,15}$/, 'must be a chunk id (digits)').transform(Number);

/**
 * A page of a document's passages: from `offset`, or the page of `limit` passages that holds the
 * chunk `page_of` (an answer's source names the chunk it cites; its page is found for it).
 */
export const chunkPageQuery = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(200).default(20),
    offset: z.coerce.number().int().min(0).optional(),
    page_of: chunkId.optional(),
  })
  .refine((q) => q.offset === undefined || q.page_of === undefined, { message: 'give offset or page_of, not both', path: ['page_of'] });

/** A page of what was taken from a document, or only from one of its passages (`chunk_id`). */
export const takenFromQuery = pageQuery.extend({ chunk_id: chunkId.optional() });

export const chunkResponse = z.object({
  chunk_id: z.string(),
  /** The passage's place in the document, from 0. */
  index: z.number().int(),
  text: z.string(),
  token_count: z.number().int(),
  /** What the model wrote of it while ingesting (null when no summary was made). */
  summary: z.string().nullable(),
});

export const chunkListResponse = z.object({
  items: z.array(chunkResponse),
  limit: z.number().int(),
  /** Where the page starts: the one asked for, or the one found for `page_of`. */
  offset: z.number().int(),
});

export const documentEntityListResponse = z.object({
  items: z.array(entityResponse),
  limit: z.number().int(),
  offset: z.number().int(),
  /** The passage asked for, or null (the whole document). */
  chunk_id: z.string().nullable(),
});

export const documentFactListResponse = z.object({
  items: z.array(factResponse),
  limit: z.number().int(),
  offset: z.number().int(),
  chunk_id: z.string().nullable(),
});

const jobStatus = z.enum(['queued', 'running', 'done', 'failed', 'deferred']);

export const ingestionJobResponse = z.object({
  job_id: z.string(),
  /** queued (waiting for a worker, or for `run_at` after a failed attempt), running, done, failed, deferred (parked: a cost cap, a suspension). */
  status: jobStatus,
  /** Attempts started (a deferral or a stop for a deploy gives its attempt back), and how many are allowed. */
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  /** When the upload or the retry queued it. */
  queued_at: z.string(),
  /** When the attempt that is running, or that ended it (done, failed), started; null while it waits (queued, deferred). */
  started_at: z.string().nullable(),
  /** Not started before this (a failed attempt's backoff). */
  run_at: z.string(),
  /** Its latest change: when it finished, for a done or failed job. */
  updated_at: z.string(),
  /** Why the latest failed attempt failed or why it is deferred; kept when a later attempt succeeds. */
  last_error: z.string().nullable(),
  /** Queued as background work (during a bulk load): taken only when no other work is ready. */
  background: z.boolean(),
});

export const ingestionJobListResponse = z.object({
  /** One job for the upload and one for each retry, oldest first. */
  items: z.array(ingestionJobResponse),
});

export function toChunkResponse(chunk: ChunkRecord): z.infer<typeof chunkResponse> {
  return { chunk_id: String(chunk.id), index: chunk.index, text: chunk.text, token_count: chunk.tokenCount, summary: chunk.summary };
}

export function toIngestionJobResponse(job: Job): z.infer<typeof ingestionJobResponse> {
  return {
    job_id: String(job.id),
    status: job.status,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    queued_at: job.createdAt.toISOString(),
    started_at: job.lockedAt?.toISOString() ?? null,
    run_at: job.runAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
    last_error: job.lastError === null ? null : withoutWorkerName(job.lastError),
    background: job.background,
  };
}

/** A lapsed lease names the worker (host and process id): the platform's, not the tenant's business. */
function withoutWorkerName(error: string): string {
  return error.replace(/^lease expired: worker \S+ /, 'lease expired: a worker ');
}

// OpenAPI component names: the types of the generated client (packages/client).
named('DocumentChunkList', chunkListResponse);
named('DocumentEntityList', documentEntityListResponse);
named('DocumentFactList', documentFactListResponse);
named('DocumentJobList', ingestionJobListResponse);
