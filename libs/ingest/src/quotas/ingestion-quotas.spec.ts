import type { IngestionUse } from '@loci/db';
import { refusalOf } from './ingestion-quotas';

describe('refusalOf', () => {
  // Counts with the document just inserted (2 000 bytes) already in them.
  const use = (over: Partial<IngestionUse & { documentBytes: number }> = {}) => ({
    documentsToday: 3,
    textBytesToday: 1_500_000,
    storedTextBytes: 4_000_000,
    dailyDocumentQuota: null,
    dailyIngestMb: null,
    maxStoredMb: null,
    secondsToNextDay: 3_600,
    documentBytes: 2_000,
    ...over,
  });

  it('admits anything when every quota is unlimited', () => {
    expect(refusalOf(use())).toBeUndefined();
  });

  it('admits up to each edge, included', () => {
    expect(refusalOf(use({ dailyDocumentQuota: 3, maxStoredMb: 4, textBytesToday: 2_000_000, dailyIngestMb: 2 }))).toBeUndefined();
  });

  it('refuses the document past the daily count with 429 until the next UTC day', () => {
    const refusal = refusalOf(use({ dailyDocumentQuota: 2 }))!;
    expect(refusal.status).toBe(429);
    expect(refusal.body).toEqual({ error: 'daily_document_quota_exceeded', limit: 2, retry_after: 3_600 });
    expect(refusal.retryAfterSeconds).toBe(3_600);
  });

  it('refuses text past the daily MB with 429, naming the limit and what was taken in before', () => {
    const refusal = refusalOf(use({ dailyIngestMb: 1 }))!;
    expect(refusal.status).toBe(429);
    expect(refusal.body).toEqual({ error: 'daily_ingest_quota_exceeded', limit_mb: 1, ingested_mb: 1.498, retry_after: 3_600 });
  });

  it('refuses with 413 and no Retry-After a document larger than a whole day allows', () => {
    const refusal = refusalOf(use({ dailyIngestMb: 1, documentBytes: 1_200_000 }))!;
    expect(refusal.status).toBe(413);
    expect(refusal.retryAfterSeconds).toBeNull();
    expect(refusal.body).not.toHaveProperty('retry_after');
  });

  it('refuses storage past max_stored_mb with 413 and no Retry-After, before the daily quotas', () => {
    const refusal = refusalOf(use({ maxStoredMb: 3, dailyDocumentQuota: 1 }))!;
    expect(refusal.status).toBe(413);
    expect(refusal.retryAfterSeconds).toBeNull();
    expect(refusal.body).toEqual({ error: 'storage_quota_exceeded', limit_mb: 3, stored_mb: 3.998 });
  });
});
