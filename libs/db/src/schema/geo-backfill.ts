import { bigint, foreignKey, pgTable, primaryKey, timestamp } from 'drizzle-orm/pg-core';
import { tenantIdColumn } from './columns';
import { tenants } from './tenancy';

/**
 * How far the geo backfill has gone through a tenant's entities (issue 40.9): every entity of
 * the tenant with an id up to `last_entity_id` has been looked up in the gazetteer once, found
 * or not, so a name it does not know is never tried again. Entity ids come from one identity
 * sequence, so one number a tenant says what is done; rows remembered later (geo off, then on
 * again) have higher ids and are swept by the next start with geo on. A row per tenant, kept
 * while the tenant lives.
 */
export const geoBackfillProgress = pgTable(
  'geo_backfill_progress',
  {
    tenantId: tenantIdColumn(),
    lastEntityId: bigint('last_entity_id', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.tenantId] }), foreignKey({ columns: [t.tenantId], foreignColumns: [tenants.id] }).onDelete('cascade')],
);
