import { z } from 'zod';
import { NotFoundError } from '@loci/common';
import type { DocumentView } from '@loci/ingest';
import { freeText, plainName, named } from '@loci/http';
import { pageQuery } from '../admin/admin.dto';

export const createDocumentBody = z.strictObject({
  name: plainName(z.string().trim().min(1).max(500)),
  text: freeText().refine((t) => t.trim().length > 0, 'must not be empty'),
  document_date: z.iso
    .datetime({ offset: true, error: 'must be an ISO-8601 date-time' })
    .or(z.iso.date({ error: 'must be an ISO-8601 date or date-time' }))
    .transform((value) => new Date(value))
    .optional(),
});

/** The text fields that may accompany a multipart upload. */
export const uploadFields = z.object({
  name: createDocumentBody.shape.name.optional(),
  document_date: createDocumentBody.shape.document_date,
});

const documentStatus = z.enum(['pending', 'processing', 'processed', 'failed', 'deferred']);

/** A page of the tenant's documents, newest first, optionally only those in one status. */
export const documentListQuery = pageQuery.extend({ status: documentStatus.optional() });

export const documentIdParam = z.string().regex(/^\d{1,15}$/);

/** Document ids are integers; anything else names no document. */
export function parseDocumentId(raw: string): number {
  if (!documentIdParam.safeParse(raw).success) throw new NotFoundError('No such document.');
  return Number(raw);
}

export const submittedResponse = z.object({
  document_id: z.string(),
  status: documentStatus,
});

export const documentResponse = z.object({
  document_id: z.string(),
  name: z.string(),
  mime_type: z.string(),
  status: documentStatus,
  /** Why the document failed or is deferred, in words a tenant can act on. */
  error: z.string().nullable(),
  progress: z.object({ chunks_done: z.number().int(), chunks_total: z.number().int() }),
  counts: z.object({ chunks: z.number().int(), entities: z.number().int(), edges: z.number().int() }),
  document_date: z.string().nullable(),
  loaded_at: z.string(),
  processed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const documentListResponse = z.object({
  items: z.array(documentResponse),
  limit: z.number().int(),
  offset: z.number().int(),
  /** The status filter asked for, or null. */
  status: documentStatus.nullable(),
});

export function toDocumentResponse({ document, counts }: DocumentView): z.infer<typeof documentResponse> {
  return {
    document_id: String(document.id),
    name: document.name,
    mime_type: document.mimeType,
    status: document.status,
    error: document.statusReason,
    progress: { chunks_done: document.chunksDone, chunks_total: document.chunksTotal },
    counts,
    document_date: document.documentDate?.toISOString() ?? null,
    loaded_at: document.loadedAt.toISOString(),
    processed_at: document.processedAt?.toISOString() ?? null,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
  };
}

// OpenAPI component names: the types of the generated client (packages/client).
named('CreateDocumentRequest', createDocumentBody);
named('DocumentSubmitted', submittedResponse);
named('Document', documentResponse);
named('DocumentList', documentListResponse);
