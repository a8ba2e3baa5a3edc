import { z } from 'zod';
import { named } from '@loci/http';
import { microsToUsd } from '@loci/common';
import type { UsageDay } from '@loci/db';
import { BYTES_PER_MB } from '@loci/ingest';

const DAY_MS = 86_400_000;
const isoDay = z.iso.date({ error: 'must be a date, YYYY-MM-DD' });

/** `from` inclusive, `to` exclusive, UTC days; by default the last 30 days including today. */
export const usageQuery = z
  .strictObject({
    from: isoDay.optional(),
    to: isoDay.optional(),
    tenant_id: z.uuid({ error: 'must be a tenant id' }).optional(),
  })
  .transform((q) => {
    const today = new Date(new Date().toISOString().slice(0, 10));
    const to = q.to ? new Date(q.to) : new Date(today.getTime() + DAY_MS);
    const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY_MS);
    return { from, to, tenantId: q.tenant_id };
  })
  .refine((q) => q.from < q.to, { message: 'from must be before to', path: ['from'] })
  .refine((q) => q.to.getTime() - q.from.getTime() <= 366 * DAY_MS, { message: 'at most 366 days at once', path: ['to'] });

export const usageResponse = z.object({
  from: z.string(),
  to: z.string(),
  items: z.array(
    z.object({
      tenant_id: z.string(),
      day: z.string(),
      questions: z.number().int(),
      model_calls: z.number().int(),
      tokens_in: z.number().int(),
      tokens_out: z.number().int(),
      cost_usd: z.object({ platform: z.number(), own_key: z.number() }),
      refusals: z
        .record(z.string(), z.number().int())
        .describe('requests refused by a spend limit, by kind: cost_cap_exceeded, cost_cap_monthly_exceeded, platform_budget_paused, daily_query_quota_exceeded, too_many_concurrent_queries, limits_unavailable, daily_document_quota_exceeded, daily_ingest_quota_exceeded, storage_quota_exceeded'),
      documents: z.number().int().describe('documents taken in (uploads and gb remembers; a deduplicated upload is not counted), against daily_document_quota'),
      ingested_mb: z.number().describe('MB (10^6 bytes) of their text, against daily_ingest_mb'),
    }),
  ),
});

export function toUsageResponse(range: { from: Date; to: Date }, days: UsageDay[]): z.infer<typeof usageResponse> {
  return {
    from: range.from.toISOString().slice(0, 10),
    to: range.to.toISOString().slice(0, 10),
    items: days.map((d) => ({
      tenant_id: d.tenantId,
      day: d.day,
      questions: d.questions,
      model_calls: d.modelCalls,
      tokens_in: d.tokensIn,
      tokens_out: d.tokensOut,
      cost_usd: { platform: microsToUsd(d.costPlatformMicros), own_key: microsToUsd(d.costOwnKeyMicros) },
      refusals: d.refusals,
      documents: d.documents,
      ingested_mb: d.textBytes / BYTES_PER_MB,
    })),
  };
}

// OpenAPI component names: the types of the generated client (packages/client).
named('Usage', usageResponse);
