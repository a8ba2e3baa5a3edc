import type { Response } from 'express';
import type { Permit, RatedBucket } from '@loci/quota';

/**
 * Limits as IETF httpapi RateLimit headers (draft-ietf-httpapi-ratelimit-headers), so clients can
 * pace themselves before they meet a 429. Each limit is one item of both lists, added to what
 * the response already carries:
 * - the daily question quota: `RateLimit-Policy: "daily";q=100;w=86400`, `RateLimit: "daily";r=58;t=3600`;
 * - a request rate's token bucket: `"tenant";q=<burst>;w=<seconds to refill it>` (its rate is
 *   q/w), and `"tenant";r=<tokens left>;t=<seconds until full>`; `"key"` for an API key's own.
 */
export function setRateLimitHeaders(res: Response, permit: Permit | undefined): void {
  if (!permit?.quota) return;
  const { limit, used, resetSeconds } = permit.quota;
  addItem(res, 'RateLimit-Policy', `"daily";q=${limit};w=86400`);
  addItem(res, 'RateLimit', `"daily";r=${Math.max(0, limit - used)};t=${resetSeconds}`);
}

export function setRequestRateHeaders(res: Response, buckets: RatedBucket[]): void {
  for (const bucket of buckets) {
    const refillSeconds = Math.ceil((bucket.burst * 60) / bucket.perMinute);
    addItem(res, 'RateLimit-Policy', `"${bucket.scope}";q=${bucket.burst};w=${refillSeconds}`);
    addItem(res, 'RateLimit', `"${bucket.scope}";r=${bucket.remaining};t=${Math.ceil(bucket.fullInMs / 1000)}`);
  }
}

/** Structured-field lists: a second item joins the first with ", ". */
function addItem(res: Response, header: string, item: string): void {
  if (res.headersSent) return;
  const current = res.getHeader(header);
  res.setHeader(header, current ? `${String(current)}, ${item}` : item);
}
