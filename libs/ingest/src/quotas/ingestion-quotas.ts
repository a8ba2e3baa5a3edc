import { Injectable } from '@nestjs/common';
import { LimitExceededError } from '@loci/common';
import { Db, IngestionCountsRepository, IngestionUse } from '@loci/db';

/** The quotas' MB: 10^6 bytes of text (UTF-8, as stored). */
export const BYTES_PER_MB = 1_000_000;

export const bytesToMb = (bytes: number) => bytes / BYTES_PER_MB;

/** The day's documents (uploads and gb remembers) are used up until the next UTC midnight. */
export const dailyDocumentQuotaExceeded = (limit: number, retryAfter: number) =>
  new LimitExceededError(429, { error: 'daily_document_quota_exceeded', limit, retry_after: retryAfter }, retryAfter);

/**
 * The day's text would pass `daily_ingest_mb` with this document: 429 until the next UTC
 * midnight; or 413 with no Retry-After when the document alone is larger than a whole day's
 * allowance, which waiting would not change.
 */
export const dailyIngestQuotaExceeded = (limitMb: number, ingestedBytes: number, retryAfter: number | null) =>
  new LimitExceededError(
    retryAfter === null ? 413 : 429,
    { error: 'daily_ingest_quota_exceeded', limit_mb: limitMb, ingested_mb: bytesToMb(ingestedBytes), ...(retryAfter === null ? {} : { retry_after: retryAfter }) },
    retryAfter,
  );

/** The tenant's stored text would pass `max_stored_mb`: 413 until it deletes documents (or an operator raises it). */
export const storageQuotaExceeded = (limitMb: number, storedBytes: number) =>
  new LimitExceededError(413, { error: 'storage_quota_exceeded', limit_mb: limitMb, stored_mb: bytesToMb(storedBytes) }, null);

/**
 * The ingestion quotas (issue 34.4), enforced where a document is inserted: counted in the
 * inserting transaction and, past a quota, refused by throwing, which rolls the document and
 * its counts back. A deduplicated upload inserts nothing and is never counted here.
 */
@Injectable()
export class IngestionQuotas {
  constructor(private readonly counts: IngestionCountsRepository) {}

  /** Counts the document just inserted in `tx`; throws the refusal when it passes a quota. */
  async admit(tenantId: string, documentId: number, tx: Db): Promise<void> {
    const use = await this.counts.count(tenantId, documentId, tx);
    const refusal = refusalOf(use);
    if (refusal) throw refusal;
  }
}

/**
 * The quota the counts (this document's included) pass, if any. Storage first: it does not pass
 * with time, so a tenant past it and a daily quota learns what it must do, not when to retry.
 */
export function refusalOf(use: IngestionUse & { documentBytes: number }): LimitExceededError | undefined {
  const before = { day: use.textBytesToday - use.documentBytes, stored: use.storedTextBytes - use.documentBytes };
  if (use.maxStoredMb !== null && use.storedTextBytes > use.maxStoredMb * BYTES_PER_MB) {
    return storageQuotaExceeded(use.maxStoredMb, before.stored);
  }
  if (use.dailyDocumentQuota !== null && use.documentsToday > use.dailyDocumentQuota) {
    return dailyDocumentQuotaExceeded(use.dailyDocumentQuota, use.secondsToNextDay);
  }
  if (use.dailyIngestMb !== null && use.textBytesToday > use.dailyIngestMb * BYTES_PER_MB) {
    const neverFits = use.documentBytes > use.dailyIngestMb * BYTES_PER_MB;
    return dailyIngestQuotaExceeded(use.dailyIngestMb, before.day, neverFits ? null : use.secondsToNextDay);
  }
  return undefined;
}
