import type { TenantLimits, TenantTier } from '@loci/db';

/**
 * Limits a new tenant starts with, by tier (operators change them per tenant afterwards).
 * The calendar-month cap is the free tier's: paying tiers are bounded by their daily cap.
 * Running ingestion jobs: a share of a deployment's workers, so one tenant's long documents
 * cannot hold them all (on one 2-core process, with 2 workers, a free tenant alone still uses both).
 */
export const TIER_DEFAULT_LIMITS: Record<TenantTier, TenantLimits> = {
  free: { dailyCostCapMicros: 1_000_000, monthlyCostCapMicros: 5_000_000, dailyQueryQuota: 100, maxConcurrentQueries: 2, maxRunningJobs: 2 },
  pro: { dailyCostCapMicros: 50_000_000, monthlyCostCapMicros: null, dailyQueryQuota: 5_000, maxConcurrentQueries: 10, maxRunningJobs: 4 },
  enterprise: { dailyCostCapMicros: null, monthlyCostCapMicros: null, dailyQueryQuota: null, maxConcurrentQueries: null, maxRunningJobs: null },
};
