import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE, Db, queryRows } from '../database';

/** The database's UTC day: a day's count is the same whichever API instance takes the upload. */
const TODAY = sql`(now() AT TIME ZONE 'UTC')::date`;

/** A tenant's ingestion counted so far, with its quotas (null = unlimited). */
export interface IngestionUse {
  documentsToday: number;
  textBytesToday: number;
  storedTextBytes: number;
  dailyDocumentQuota: number | null;
  dailyIngestMb: number | null;
  maxStoredMb: number | null;
  /** Until the database's next UTC midnight, when the day's counts start again. */
  secondsToNextDay: number;
}

/**
 * The ingestion quotas on record (`ingestion_days`, `tenant_storage`): counted in the
 * transaction that inserts or deletes a document, so they are exact under concurrency and
 * across restarts, with no limit store involved.
 */
@Injectable()
export class IngestionCountsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /**
   * Counts the document just inserted in `tx` (its text's bytes as stored): one more document
   * and its bytes today, its bytes stored. Returns the counts with it and the tenant's quotas, for
   * the caller to compare and, past one, to throw, which rolls the insert and the counts back.
   * The upserts lock the tenant's rows until `tx` ends: a concurrent upload of the tenant waits
   * and then counts on top of this one's (or of nothing, if this one rolled back).
   */
  async count(tenantId: string, documentId: number, tx: Db): Promise<IngestionUse & { documentBytes: number }> {
    const [row] = await queryRows<Record<string, unknown>>(
      tx,
      sql`WITH doc AS (
            SELECT octet_length(text)::bigint AS n FROM documents WHERE tenant_id = ${tenantId} AND id = ${documentId}
          ), day AS (
            INSERT INTO ingestion_days AS d (tenant_id, day, documents, text_bytes)
            SELECT ${tenantId}, ${TODAY}, 1, n FROM doc
            ON CONFLICT (tenant_id, day) DO UPDATE SET documents = d.documents + 1, text_bytes = d.text_bytes + excluded.text_bytes
            RETURNING d.documents, d.text_bytes
          ), stored AS (
            INSERT INTO tenant_storage AS s (tenant_id, text_bytes)
            SELECT ${tenantId}, n FROM doc
            ON CONFLICT (tenant_id) DO UPDATE SET text_bytes = s.text_bytes + excluded.text_bytes
            RETURNING s.text_bytes
          )
          SELECT day.documents, day.text_bytes AS day_bytes, stored.text_bytes AS stored_bytes, (SELECT n FROM doc) AS document_bytes,
                 t.daily_document_quota, t.daily_ingest_mb, t.max_stored_mb, ${SECONDS_TO_NEXT_DAY} AS seconds_to_next_day
            FROM day, stored, tenants t WHERE t.id = ${tenantId}`,
    );
    if (!row) throw new Error(`document ${documentId} of tenant ${tenantId} to count is not there`);
    return { ...useOf(row), documentBytes: Number(row.document_bytes) };
  }

  /** What the tenant took in today and keeps stored, with its quotas (GET /v1/tenant). */
  async use(tenantId: string, db: Db = this.database.db): Promise<IngestionUse> {
    const [row] = await queryRows<Record<string, unknown>>(
      db,
      sql`SELECT coalesce(d.documents, 0) AS documents, coalesce(d.text_bytes, 0) AS day_bytes, coalesce(s.text_bytes, 0) AS stored_bytes,
                 t.daily_document_quota, t.daily_ingest_mb, t.max_stored_mb, ${SECONDS_TO_NEXT_DAY} AS seconds_to_next_day
            FROM tenants t
            LEFT JOIN ingestion_days d ON d.tenant_id = t.id AND d.day = ${TODAY}
            LEFT JOIN tenant_storage s ON s.tenant_id = t.id
           WHERE t.id = ${tenantId}`,
    );
    return useOf(row ?? {});
  }

  /** Several tenants' use (the operators' tenant list); a tenant with nothing counted is absent. */
  async uses(tenantIds: string[]): Promise<Map<string, Pick<IngestionUse, 'documentsToday' | 'textBytesToday' | 'storedTextBytes'>>> {
    const result = new Map<string, Pick<IngestionUse, 'documentsToday' | 'textBytesToday' | 'storedTextBytes'>>();
    if (tenantIds.length === 0) return result;
    const rows = await queryRows<Record<string, unknown>>(
      this.database.db,
      sql`SELECT t.id AS tenant_id, coalesce(d.documents, 0) AS documents, coalesce(d.text_bytes, 0) AS day_bytes,
                 coalesce(s.text_bytes, 0) AS stored_bytes
            FROM tenants t
            LEFT JOIN ingestion_days d ON d.tenant_id = t.id AND d.day = ${TODAY}
            LEFT JOIN tenant_storage s ON s.tenant_id = t.id
           WHERE t.id IN ${tenantIds}`,
    );
    for (const row of rows) {
      const use = useOf(row);
      result.set(String(row.tenant_id), { documentsToday: use.documentsToday, textBytesToday: use.textBytesToday, storedTextBytes: use.storedTextBytes });
    }
    return result;
  }

}

/**
 * Takes deleted text off the tenant's storage, in the deleting transaction (a document's, or a
 * gb dataset's). A day's ingestion is not given back: it was taken in.
 */
export async function freeStoredText(tx: Db, tenantId: string, textBytes: number): Promise<void> {
  if (!(textBytes > 0)) return;
  await tx.execute(sql`UPDATE tenant_storage SET text_bytes = greatest(text_bytes - ${textBytes}::bigint, 0) WHERE tenant_id = ${tenantId}`);
}

const SECONDS_TO_NEXT_DAY = sql`ceil(extract(epoch FROM (date_trunc('day', now() AT TIME ZONE 'UTC') + interval '1 day') - (now() AT TIME ZONE 'UTC')))::int`;

function useOf(row: Record<string, unknown>): IngestionUse {
  const orNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    documentsToday: Number(row.documents ?? 0),
    textBytesToday: Number(row.day_bytes ?? 0),
    storedTextBytes: Number(row.stored_bytes ?? 0),
    dailyDocumentQuota: orNull(row.daily_document_quota),
    dailyIngestMb: orNull(row.daily_ingest_mb),
    maxStoredMb: orNull(row.max_stored_mb),
    secondsToNextDay: Math.max(1, Number(row.seconds_to_next_day ?? 1)),
  };
}
