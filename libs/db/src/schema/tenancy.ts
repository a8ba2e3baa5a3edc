import { sql } from 'drizzle-orm';
import { check, foreignKey, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, microDollars, tenantIdColumn, updatedAt } from './columns';

export const tenantTier = pgEnum('tenant_tier', ['free', 'pro', 'enterprise']);
export const tenantBilling = pgEnum('tenant_billing', ['platform', 'own_key']);
export const userRole = pgEnum('user_role', ['operator', 'admin', 'member']);
export const apiKeyScope = pgEnum('api_key_scope', ['read', 'write']);

/**
 * Tenants, and the limits operators tune for each (null = unlimited). Global table: on Citus
 * it would be a reference table.
 */
export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  tier: tenantTier('tier').notNull().default('free'),
  billing: tenantBilling('billing').notNull().default('platform'),
  /** The tenant's own LLM provider key (billing own_key), AES-256-GCM sealed; never returned. */
  ownLlmProvider: text('own_llm_provider'),
  ownLlmKeyEncrypted: text('own_llm_key_encrypted'),
  dailyCostCapMicros: microDollars('daily_cost_cap_micros'),
  monthlyCostCapMicros: microDollars('monthly_cost_cap_micros'),
  dailyQueryQuota: integer('daily_query_quota'),
  maxConcurrentQueries: integer('max_concurrent_queries'),
  /** Ingestion jobs of the tenant running at once, on all workers together; null = no cap (issue 34.1). */
  maxRunningJobs: integer('max_running_jobs'),
  /**
   * Requests a minute on the metered surfaces (questions, gb, uploads, MCP tools), refilled
   * steadily, and how many may come at once (the bucket's size); null = no rate limit (issue 34.3).
   */
  requestsPerMinute: integer('requests_per_minute'),
  requestBurst: integer('request_burst'),
  /** Documents and gb remembers a UTC day; null = unlimited (issue 34.4). */
  dailyDocumentQuota: integer('daily_document_quota'),
  /** MB (10^6 bytes) of extracted text taken in a UTC day; null = unlimited. */
  dailyIngestMb: integer('daily_ingest_mb'),
  /** MB of text the tenant may keep stored (its documents' and memories' text); null = unlimited. */
  maxStoredMb: integer('max_stored_mb'),
  /** Set by an operator: every request of the tenant is refused and its ingestion paused. */
  suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
  /**
   * The language of the sentences Loci writes itself (the no-answer text of /v1/query): 'en' or
   * 'ru'. Null: the /v1/query contract's own sentence (Russian). A request's Accept-Language
   * naming a language Loci has comes first.
   */
  answerLanguage: text('answer_language'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Tenant members and platform operators (tenant_id null). Global: login looks a user up by
 * email alone, before any tenant is known, so emails are unique platform-wide.
 */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').references(() => tenants.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: userRole('role').notNull(),
    /** A disabled user can neither log in nor use a token issued before. */
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    /**
     * Carried in every access token and compared on each request: bumped on disable, delete
     * and password change, it ends every token issued before, on every instance.
     */
    tokenVersion: integer('token_version').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_key').on(sql`lower(${t.email})`),
    index('users_tenant_idx').on(t.tenantId),
  ],
);

/**
 * API keys: `loci_<secret>`; we keep only a lookup prefix and the sha256 of the whole key.
 * The prefix is unique platform-wide because a request presents the key without its tenant.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    tenantId: tenantIdColumn(),
    id: uuid('id').notNull().defaultRandom(),
    name: text('name').notNull(),
    prefix: text('prefix').notNull(),
    secretHash: text('secret_hash').notNull(),
    createdByUserId: uuid('created_by_user_id'),
    /** What the key may do: `read` (questions, context), `write` (documents, remember). */
    scopes: apiKeyScope('scopes').array().notNull().default(sql`'{read,write}'::api_key_scope[]`),
    /** After this instant the key is refused as if revoked; null = never expires. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** This key's own requests a minute, within its tenant's; null = only the tenant's rate applies. */
    requestsPerMinute: integer('requests_per_minute'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    uniqueIndex('api_keys_id_key').on(t.id),
    uniqueIndex('api_keys_prefix_key').on(t.prefix),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * Platform-wide limits set by operators: one row (id 1). The platform's daily spend cap applies
 * to tenants billed on the platform key only.
 */
export const platformLimits = pgTable(
  'platform_limits',
  {
    id: integer('id').primaryKey().default(1),
    dailyCostCapMicros: microDollars('daily_cost_cap_micros'),
    updatedAt: updatedAt(),
  },
  (t) => [check('platform_limits_single_row', sql`${t.id} = 1`)],
);

export type TenantRow = typeof tenants.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type TenantTier = (typeof tenantTier.enumValues)[number];
export type TenantBilling = (typeof tenantBilling.enumValues)[number];
export type UserRole = (typeof userRole.enumValues)[number];
export type ApiKeyScope = (typeof apiKeyScope.enumValues)[number];

