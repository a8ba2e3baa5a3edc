import type { Response } from 'express';
import type { Permit } from '@loci/quota';

/**
 * The daily question quota as IETF httpapi RateLimit headers (draft-ietf-httpapi-ratelimit-headers):
 * `RateLimit-Policy: "daily";q=100;w=86400` and `RateLimit: "daily";r=58;t=3600`, so clients can
 * pace themselves before they meet a 429.
 */
export function setRateLimitHeaders(res: Response, permit: Permit | undefined): void {
  if (!permit?.quota) return;
  const { limit, used, resetSeconds } = permit.quota;
  res.setHeader('RateLimit-Policy', `"daily";q=${limit};w=86400`);
  res.setHeader('RateLimit', `"daily";r=${Math.max(0, limit - used)};t=${resetSeconds}`);
}
