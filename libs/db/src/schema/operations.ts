import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, microDollars, serialIdColumn, tenantIdColumn, updatedAt } from './columns';
import { tenants } from './tenancy';

export const billedTo = pgEnum('billed_to', ['platform', 'own_key']);
/** `pending` is written before the call, so a process that dies mid-call leaves its spend visible. */
export const inferenceStatus = pgEnum('inference_status', ['pending', 'ok', 'error']);
export const jobStatus = pgEnum('job_status', ['queued', 'running', 'done', 'failed', 'deferred']);

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The inference ledger: one row per model call, the source of truth for spend. Cost is in
 * integer micro-dollars, computed from the provider's reported token usage and our price table.
 */
export const inferences = pgTable(
  'inferences',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    /** The HTTP request id, or `job:<id>:<attempt>` for background work. */
    requestId: text('request_id').notNull(),
    /** Position of the call within its request: (request_id, call_index) makes writes idempotent. */
    callIndex: integer('call_index').notNull().default(0),
    /** What the call served: `query` (/v1/query and gb query), `ingest`, `remember`. */
    kind: text('kind').notNull(),
    /** The pipeline stage: `extract`, `summarize`, `keywords`, `answer`, `embed`, `detect_geo`, `query`. */
    stage: text('stage').notNull(),
    provider: text('provider').notNull(),
    model: text('model').notNull(),
    reasoning: text('reasoning'),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    tokensThinking: integer('tokens_thinking').notNull().default(0),
    costMicros: microDollars('cost_micros').notNull().default(0),
    /** Worst-case cost estimated before the call (what a cap reservation holds). */
    estimatedCostMicros: microDollars('estimated_cost_micros').notNull().default(0),
    billedTo: billedTo('billed_to').notNull(),
    /**
     * Whether the call counts against the spend caps. false only for the question embedding of
     * an API-key context question, which the contract says spends nothing against any cap: it
     * is on record (and in usage) but outside the caps and the counters rebuilt from them.
     */
    spendLimited: boolean('spend_limited').notNull().default(true),
    // No default: the ledger always says; and a default naming a value added by ALTER TYPE
    // cannot be set in the migration transaction that adds it.
    status: inferenceStatus('status').notNull(),
    error: text('error'),
    latencyMs: integer('latency_ms'),
    documentId: bigint('document_id', { mode: 'number' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('inferences_tenant_created_idx').on(t.tenantId, t.createdAt),
    uniqueIndex('inferences_call_key').on(t.tenantId, t.requestId, t.callIndex),
    index('inferences_platform_created_idx').on(t.createdAt).where(sql`${t.billedTo} = 'platform'`),
  ],
);

/**
 * The durable job queue (consumed with FOR UPDATE SKIP LOCKED). A job whose worker died is
 * found again by its stale `locked_at` and retried; `attempts` bounds retries.
 */
export const jobs = pgTable(
  'jobs',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').notNull().default({}),
    status: jobStatus('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(5),
    runAt: timestamptz('run_at').notNull().defaultNow(),
    lockedAt: timestamptz('locked_at'),
    lockedBy: text('locked_by'),
    /** A running job whose lease has passed belongs to a worker presumed dead: it is claimable again. */
    leaseExpiresAt: timestamptz('lease_expires_at'),
    lastError: text('last_error'),
    /**
     * The job's turn in the fair queue (start-time fair queuing across tenants): given when it is
     * queued, one past the later of its tenant's last queued turn and the queue's first turn, so
     * a tenant's new job waits behind its own backlog, never behind another tenant's
     * (libs/ingest/src/queue/fair-turn.ts).
     */
    fairTag: bigint('fair_tag', { mode: 'number' }).notNull().default(0),
    /**
     * Work that waits for every other kind (a bulk load's documents and index builds, the geo
     * backfill): claimed only when no other job is ready. Turns are taken within each class.
     */
    background: boolean('background').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    // Claims walk the queued jobs of each class in turn order; a new job reads its class's first turn here.
    index('jobs_ready_idx').on(t.fairTag).where(sql`${t.status} = 'queued' AND NOT ${t.background}`),
    index('jobs_background_ready_idx').on(t.fairTag).where(sql`${t.status} = 'queued' AND ${t.background}`),
    // A new job reads its tenant's last queued turn in its class here.
    index('jobs_tenant_queued_idx').on(t.tenantId, t.background, t.fairTag).where(sql`${t.status} = 'queued'`),
    index('jobs_running_idx').on(t.leaseExpiresAt).where(sql`${t.status} = 'running'`),
    // The operators' view of each tenant's queue (tenant-backlog.ts): its parked jobs, and its
    // jobs finished in the last hour, without reading every job it ever had.
    index('jobs_tenant_deferred_idx').on(t.tenantId).where(sql`${t.status} = 'deferred'`),
    index('jobs_tenant_finished_idx').on(t.tenantId, t.updatedAt).where(sql`${t.status} IN ('done', 'failed')`),
    // A document's ingestion jobs (its page's processing history; a dataset's deletion): done
    // jobs are kept, so without this each look-up reads every job the tenant ever had.
    index('jobs_document_idx').on(t.tenantId, sql`(${t.payload}->>'documentId')`),
  ],
);

/** One row per question: who asked, on which surface, and the steps it took (trajectory). */
export const requestLogs = pgTable(
  'request_logs',
  {
    tenantId: tenantIdColumn(),
    id: serialIdColumn(),
    requestId: text('request_id').notNull(),
    route: text('route').notNull(),
    principalKind: text('principal_kind').notNull(),
    principalId: text('principal_id'),
    sessionId: text('session_id'),
    status: integer('status'),
    steps: jsonb('steps').notNull().default([]),
    latencyMs: integer('latency_ms'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.id] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
    index('request_logs_tenant_created_idx').on(t.tenantId, t.createdAt),
    // A trajectory is read by its request id.
    index('request_logs_request_idx').on(t.tenantId, t.requestId),
  ],
);

/**
 * Requests refused by a spend limit (402/429/503 `limits_unavailable`), counted per tenant, UTC
 * day and refusal kind (the error code). One upserted counter row rather than a row per refusal:
 * a client hammering a closed cap must not grow a table.
 */
export const limitRefusals = pgTable(
  'limit_refusals',
  {
    tenantId: tenantIdColumn(),
    day: date('day', { mode: 'string' }).notNull(),
    kind: text('kind').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day, t.kind] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * The daily question quota on record: questions admitted against a tenant's quota, per UTC day
 * of the limit store's clock (the day its counter is named for), less those given back (not
 * answered by a model). Written at admission, right after the limit store counted the question;
 * the limit store's counter is a cache of it, rebuilt from it when Redis lost its data. One
 * upserted row per tenant and day, not a row per question.
 */
export const questionCounts = pgTable(
  'question_counts',
  {
    tenantId: tenantIdColumn(),
    day: date('day', { mode: 'string' }).notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * Ingestion quotas on record (docs/decisions/0066-ingestion-quotas.md, "Ingestion quotas"): the documents a tenant
 * added (uploads and gb remembers) and the bytes of their text (UTF-8, as extracted from the
 * file), per UTC day of the database's clock. Counted in the transaction that inserts the
 * document, whose row lock serialises a tenant's concurrent uploads, so a day's count is exact;
 * a deduplicated upload inserts nothing and counts nothing. Deletions do not give a day back.
 */
export const ingestionDays = pgTable(
  'ingestion_days',
  {
    tenantId: tenantIdColumn(),
    day: date('day', { mode: 'string' }).notNull(),
    documents: integer('documents').notNull().default(0),
    textBytes: bigint('text_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.day] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

/**
 * The bytes of text a tenant keeps stored (its documents' and gb texts'), against max_stored_mb:
 * added in the transaction that inserts a document, taken off in the one that deletes it (or
 * its gb dataset), so reading it never sums the documents.
 */
export const tenantStorage = pgTable(
  'tenant_storage',
  {
    tenantId: tenantIdColumn(),
    textBytes: bigint('text_bytes', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId] }),
    foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade'),
  ],
);

export type InferenceRow = typeof inferences.$inferSelect;
export type JobRow = typeof jobs.$inferSelect;
