import { LimitExceededError, microsToUsd } from '@loci/common';

/** The contract's refusals (v1-query-contract.md: Cost cap, 402 and 429 responses). */

export const CONCURRENCY_RETRY_AFTER_SECONDS = 10;

export const costCapExceeded = (capMicros: number, spentMicros: number, retryAfter: number) =>
  new LimitExceededError(
    402,
    { error: 'cost_cap_exceeded', cap: microsToUsd(capMicros), spent: microsToUsd(spentMicros), retry_after: retryAfter },
    retryAfter,
  );

export const monthlyCostCapExceeded = (capMicros: number, spentMicros: number, retryAfter: number) =>
  new LimitExceededError(
    402,
    { error: 'cost_cap_monthly_exceeded', cap: microsToUsd(capMicros), spent: microsToUsd(spentMicros), retry_after: retryAfter },
    retryAfter,
  );

/** No `cap` field: tenants are not told the platform's budget. */
export const platformBudgetPaused = (retryAfter: number) =>
  new LimitExceededError(402, { error: 'platform_budget_paused', retry_after: retryAfter }, retryAfter);

export const dailyQuotaExceeded = (limit: number, retryAfter: number) =>
  new LimitExceededError(429, { error: 'daily_query_quota_exceeded', limit, retry_after: retryAfter }, retryAfter);

export const tooManyConcurrentQueries = (limit: number) =>
  new LimitExceededError(
    429,
    { error: 'too_many_concurrent_queries', limit, retry_after: CONCURRENCY_RETRY_AFTER_SECONDS },
    CONCURRENCY_RETRY_AFTER_SECONDS,
  );

/** Limits cannot be checked (Redis down): requests that would spend money fail closed. */
export const limitsUnavailable = (retryAfter = 5) => new LimitExceededError(503, { error: 'limits_unavailable' }, retryAfter);

/**
 * A request rate's bucket is empty (issue 34.3): the tenant's, or its API key's own. `limit` and
 * `burst` are the bucket's; `retry_after` is when its next token arrives.
 */
export const rateLimitExceeded = (scope: 'tenant' | 'key', limit: number, burst: number, retryAfter: number) =>
  new LimitExceededError(429, { error: 'rate_limit_exceeded', scope, limit, burst, retry_after: retryAfter }, retryAfter);
