import { z } from 'zod';
import { microsToUsd } from '@loci/common';
import type { ApiKeyRow, IngestionUse, TenantHoldings, TenantRow, UserRow } from '@loci/db';
import { BYTES_PER_MB, EMPTY_BACKLOG, TenantBacklog } from '@loci/ingest';
import { plainName, named } from '@loci/http';

// Request bodies: strict objects, so a misspelt field is a 400 instead of silently ignored.
export const createTenantBody = z.strictObject({
  name: plainName(z.string().trim().min(1).max(200)),
  tier: z.enum(['free', 'pro', 'enterprise']).default('free'),
  billing: z.enum(['platform', 'own_key']).default('platform'),
});

export const createUserBody = z.strictObject({
  email: z.email().max(320),
  password: z.string().min(12, 'must be at least 12 characters').max(1024),
  role: z.enum(['admin', 'member']),
});

const apiKeyScope = z.enum(['read', 'write']);

export const createApiKeyBody = z.strictObject({
  name: plainName(z.string().trim().min(1).max(200)),
  /** `read`: questions and context (query, gb query, listings); `write`: documents, remember, deletes. */
  scopes: z
    .array(apiKeyScope)
    .min(1, 'name at least one scope')
    .max(2)
    .default(['read', 'write'])
    .transform((scopes) => [...new Set(scopes)].sort()),
  /** An absolute instant with its offset; left out or null, the key never expires. */
  expires_at: z.iso
    .datetime({ offset: true })
    .nullable()
    .default(null)
    .transform((at) => (at === null ? null : new Date(at)))
    .refine((at) => at === null || at.getTime() > Date.now(), 'must be in the future'),
  /** The key's own rate, within the tenant's: one integration cannot use up what the tenant's other keys need. */
  requests_per_minute: z.number().int().min(1).max(1_000_000).nullable().default(null),
});

/** A key's new name or own rate (null: the tenant's rate alone); a field left out stays as it is. */
export const updateApiKeyBody = z
  .strictObject({
    name: plainName(z.string().trim().min(1).max(200)).optional(),
    requests_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
  })
  .refine((body) => body.name !== undefined || body.requests_per_minute !== undefined, 'name at least one of name, requests_per_minute');

export const setLlmKeyBody = z.strictObject({
  provider: z.enum(['anthropic', 'openai']),
  // A secret sent in a header to the provider: a control character can only be a mistake.
  api_key: plainName(z.string().trim().min(1).max(500)),
});

const capUsd = z.number().min(0).max(1_000_000).nullable().optional();

/** Null means unlimited; a field left out stays as it is. */
export const updateLimitsBody = z.strictObject({
  daily_cost_cap_usd: capUsd,
  monthly_cost_cap_usd: capUsd,
  daily_query_quota: z.number().int().min(0).max(100_000_000).nullable().optional(),
  max_concurrent_queries: z.number().int().min(1).max(10_000).nullable().optional(),
  max_running_jobs: z.number().int().min(1).max(10_000).nullable().optional(),
  requests_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
  request_burst: z.number().int().min(1).max(1_000_000).nullable().optional(),
  daily_document_quota: z.number().int().min(0).max(100_000_000).nullable().optional(),
  daily_ingest_mb: z.number().int().min(0).max(100_000_000).nullable().optional(),
  max_stored_mb: z.number().int().min(0).max(100_000_000).nullable().optional(),
  tier: z.enum(['free', 'pro', 'enterprise']).optional(),
  billing: z.enum(['platform', 'own_key']).optional(),
});

/** A tenant's own settings, changed by its admins (PATCH /v1/tenant); a field left out stays as it is. */
export const tenantSettingsBody = z.strictObject({
  answer_language: z
    .enum(['en', 'ru'])
    .nullable()
    .optional()
    .describe("The language of the sentences Loci writes itself (/v1/query's no-answer text); null: the contract's (Russian)."),
});

export const platformLimitsBody = z.strictObject({ daily_cost_cap_usd: z.number().min(0).max(100_000_000).nullable() });
export const platformLimitsResponse = z.object({ daily_cost_cap_usd: z.number().nullable() });

export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

// Responses.
export const tenantResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  tier: z.enum(['free', 'pro', 'enterprise']),
  billing: z.enum(['platform', 'own_key']),
  /** Which provider the tenant's own key is for; the key itself is never returned. */
  own_llm_provider: z.enum(['anthropic', 'openai']).nullable(),
  /** Null = unlimited. Money in USD on the wire (integer micro-dollars inside). */
  limits: z.object({
    daily_cost_cap_usd: z.number().nullable(),
    monthly_cost_cap_usd: z.number().nullable(),
    daily_query_quota: z.number().int().nullable(),
    max_concurrent_queries: z.number().int().nullable(),
    /** Ingestion jobs running at once, on every worker together (the fair queue's cap). */
    max_running_jobs: z.number().int().nullable(),
    /** Metered requests (questions, gb, uploads, MCP tools) a minute, refilled steadily; null = no rate limit. */
    requests_per_minute: z.number().int().nullable(),
    /** How many metered requests may come at once before the rate applies; null = one minute's worth. */
    request_burst: z.number().int().nullable(),
    /** Documents and gb remembers a UTC day. */
    daily_document_quota: z.number().int().nullable(),
    /** MB (10^6 bytes) of extracted text taken in a UTC day. */
    daily_ingest_mb: z.number().int().nullable(),
    /** MB of text the tenant may keep stored. */
    max_stored_mb: z.number().int().nullable(),
  }),
  /** When an operator suspended the tenant (every request refused, ingestion paused); null = active. */
  suspended_at: z.iso.datetime().nullable(),
  /** The language of Loci's own sentences (no-answer text); null = the /v1/query contract's. A request's Accept-Language comes first. */
  answer_language: z.enum(['en', 'ru']).nullable(),
  created_at: z.iso.datetime(),
  /**
   * Spend so far against the caps (UTC day and calendar month, from the ledger): on GET of one
   * tenant, on every item of the operators' list, and on GET /v1/tenant; not on writes.
   */
  spend: z.object({ today_usd: z.number(), this_month_usd: z.number() }).optional(),
  /**
   * Use against the ingestion quotas (`limits.daily_document_quota`, `daily_ingest_mb`,
   * `max_stored_mb`): documents and MB (10^6 bytes) of text taken in this UTC day, and MB of text
   * stored now. On the same responses as `spend`.
   */
  ingestion: z
    .object({ documents_today: z.number().int(), ingested_mb_today: z.number(), stored_mb: z.number() })
    .optional(),
  /**
   * The tenant's ingestion queue now and its rate of work: jobs waiting (queued and due), scheduled
   * (a retry's backoff), running, and deferred (parked at a cap or while suspended); how long its
   * oldest waiting job has waited; uploaded documents processed and failed for good in the last
   * hour. On the operators' list and GET of one tenant.
   */
  queue: z
    .object({
      waiting: z.number().int(),
      scheduled: z.number().int(),
      running: z.number().int(),
      deferred: z.number().int(),
      oldest_waiting_seconds: z.number().int(),
      processed_last_hour: z.number().int(),
      failed_last_hour: z.number().int(),
    })
    .optional(),
});

/** What a tenant holds: what deleting it removes. */
export const tenantHoldingsResponse = z.object({
  tenant_id: z.uuid(),
  /** Uploaded documents and gb remembered texts. */
  documents: z.number().int(),
  gb_datasets: z.number().int(),
  entities: z.number().int(),
  facts: z.number().int(),
  users: z.number().int(),
  /** Keys neither revoked nor expired. */
  api_keys: z.number().int(),
});

export const tenantListResponse = z.object({
  items: z.array(tenantResponse),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const userResponse = z.object({
  id: z.uuid(),
  tenant_id: z.uuid().nullable(),
  email: z.string(),
  role: z.enum(['operator', 'admin', 'member']),
  /** Set while the user is disabled: no sign-in, and every token they hold is refused. */
  disabled_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});

export const apiKeyResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(apiKeyScope),
  /** Who created the key: the id stays after that user is deleted (their keys are then revoked). */
  created_by_user_id: z.uuid().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  /** The key's own requests a minute; null = only the tenant's rate applies. */
  requests_per_minute: z.number().int().nullable(),
  /** Written at most once a minute per key, so it may lag the latest use by that much. */
  last_used_at: z.iso.datetime().nullable(),
  revoked_at: z.iso.datetime().nullable(),
});

export const createdApiKeyResponse = apiKeyResponse.extend({
  key: z.string().describe('The full API key. Shown only in this response: store it now.'),
});

export const apiKeyListResponse = z.object({ items: z.array(apiKeyResponse) });

export const toTenantResponse = (t: TenantRow): z.infer<typeof tenantResponse> => ({
  id: t.id,
  name: t.name,
  tier: t.tier,
  billing: t.billing,
  own_llm_provider: (t.ownLlmKeyEncrypted ? t.ownLlmProvider : null) as 'anthropic' | 'openai' | null,
  limits: {
    daily_cost_cap_usd: t.dailyCostCapMicros === null ? null : microsToUsd(t.dailyCostCapMicros),
    monthly_cost_cap_usd: t.monthlyCostCapMicros === null ? null : microsToUsd(t.monthlyCostCapMicros),
    daily_query_quota: t.dailyQueryQuota,
    max_concurrent_queries: t.maxConcurrentQueries,
    max_running_jobs: t.maxRunningJobs,
    requests_per_minute: t.requestsPerMinute,
    request_burst: t.requestBurst,
    daily_document_quota: t.dailyDocumentQuota,
    daily_ingest_mb: t.dailyIngestMb,
    max_stored_mb: t.maxStoredMb,
  },
  suspended_at: t.suspendedAt?.toISOString() ?? null,
  answer_language: t.answerLanguage === 'en' || t.answerLanguage === 'ru' ? t.answerLanguage : null,
  created_at: t.createdAt.toISOString(),
});

/**
 * A tenant with its spend (micro-dollars from the ledger; a tenant with no call spent 0) and its
 * ingestion (a tenant with nothing counted took in and stores nothing).
 */
export const toTenantWithSpend = (
  t: TenantRow,
  spent: { dayMicros: number; monthMicros: number } | undefined,
  ingested: Pick<IngestionUse, 'documentsToday' | 'textBytesToday' | 'storedTextBytes'> | undefined,
): z.infer<typeof tenantResponse> => ({
  ...toTenantResponse(t),
  spend: { today_usd: microsToUsd(spent?.dayMicros ?? 0), this_month_usd: microsToUsd(spent?.monthMicros ?? 0) },
  ingestion: {
    documents_today: ingested?.documentsToday ?? 0,
    ingested_mb_today: (ingested?.textBytesToday ?? 0) / BYTES_PER_MB,
    stored_mb: (ingested?.storedTextBytes ?? 0) / BYTES_PER_MB,
  },
});

/** As operators see a tenant: with its queue too (a tenant with no job in sight has an empty one). */
export const toOperatorTenant = (
  t: TenantRow,
  spent: { dayMicros: number; monthMicros: number } | undefined,
  ingested: Pick<IngestionUse, 'documentsToday' | 'textBytesToday' | 'storedTextBytes'> | undefined,
  backlog: TenantBacklog = EMPTY_BACKLOG,
): z.infer<typeof tenantResponse> => ({
  ...toTenantWithSpend(t, spent, ingested),
  queue: {
    waiting: backlog.waiting,
    scheduled: backlog.scheduled,
    running: backlog.running,
    deferred: backlog.deferred,
    oldest_waiting_seconds: backlog.oldestWaitingSeconds,
    processed_last_hour: backlog.processedLastHour,
    failed_last_hour: backlog.failedLastHour,
  },
});

export const toTenantHoldingsResponse = (tenantId: string, h: TenantHoldings): z.infer<typeof tenantHoldingsResponse> => ({
  tenant_id: tenantId,
  documents: h.documents,
  gb_datasets: h.gbDatasets,
  entities: h.entities,
  facts: h.facts,
  users: h.users,
  api_keys: h.liveApiKeys,
});

export const toUserResponse = (u: UserRow): z.infer<typeof userResponse> => ({
  id: u.id,
  tenant_id: u.tenantId,
  email: u.email,
  role: u.role,
  disabled_at: u.disabledAt?.toISOString() ?? null,
  created_at: u.createdAt.toISOString(),
});

export const toApiKeyResponse = (k: ApiKeyRow): z.infer<typeof apiKeyResponse> => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  created_by_user_id: k.createdByUserId,
  created_at: k.createdAt.toISOString(),
  expires_at: k.expiresAt?.toISOString() ?? null,
  requests_per_minute: k.requestsPerMinute,
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

// OpenAPI component names: the types of the generated client (packages/client).
named('CreateTenantRequest', createTenantBody);
named('TenantSettingsRequest', tenantSettingsBody);
named('CreateUserRequest', createUserBody);
named('CreateApiKeyRequest', createApiKeyBody);
named('UpdateApiKeyRequest', updateApiKeyBody);
named('ApiKey', apiKeyResponse);
named('SetLlmKeyRequest', setLlmKeyBody);
named('UpdateLimitsRequest', updateLimitsBody);
named('PlatformLimitsRequest', platformLimitsBody);
named('PlatformLimits', platformLimitsResponse);
named('Tenant', tenantResponse);
named('TenantList', tenantListResponse);
named('TenantHoldings', tenantHoldingsResponse);
named('User', userResponse);
named('CreatedApiKey', createdApiKeyResponse);
named('ApiKeyList', apiKeyListResponse);
