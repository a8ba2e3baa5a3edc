import type { TenantLimits, TenantTier } from '@loci/db';

/**
 * Limits a new tenant starts with, by tier (operators change them per tenant afterwards).
 * The calendar-month cap is the free tier's: paying tiers are bounded by their daily cap.
 * Running ingestion jobs: a share of a deployment's workers, so one tenant's long documents
 * cannot hold them all (on one 2-core process, with 2 workers, a free tenant alone still uses both).
 * Requests a minute: a metered request costs some 60 ms of CPU on the questions path, so a free
 * tenant's 60 a minute is ~6% of one core and a pro tenant's 600 about 60% (docs/decisions/0065-request-rates-and-question-turns.md,
 * "Fair share"). Ingestion quotas: a day's documents and text, and what may stay stored.
 */
export const TIER_DEFAULT_LIMITS: Record<TenantTier, TenantLimits> = {
  free: {
    dailyCostCapMicros: 1_000_000,
    monthlyCostCapMicros: 5_000_000,
    dailyQueryQuota: 100,
    maxConcurrentQueries: 2,
    maxRunningJobs: 2,
    requestsPerMinute: 60,
    requestBurst: 20,
    dailyDocumentQuota: 1_000,
    dailyIngestMb: 50,
    maxStoredMb: 200,
  },
  pro: {
    dailyCostCapMicros: 50_000_000,
    monthlyCostCapMicros: null,
    dailyQueryQuota: 5_000,
    maxConcurrentQueries: 10,
    maxRunningJobs: 4,
    requestsPerMinute: 600,
    requestBurst: 100,
    dailyDocumentQuota: 50_000,
    dailyIngestMb: 2_000,
    maxStoredMb: 20_000,
  },
  enterprise: {
    dailyCostCapMicros: null,
    monthlyCostCapMicros: null,
    dailyQueryQuota: null,
    maxConcurrentQueries: null,
    maxRunningJobs: null,
    requestsPerMinute: null,
    requestBurst: null,
    dailyDocumentQuota: null,
    dailyIngestMb: null,
    maxStoredMb: null,
  },
};
