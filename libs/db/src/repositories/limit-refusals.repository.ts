import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';

/** Requests refused by a spend limit, counted per tenant, UTC day (the database's) and kind. */
@Injectable()
export class LimitRefusalsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** One more refusal of `kind` today; an upsert, so concurrent refusals all count. */
  async record(tenantId: string, kind: string): Promise<void> {
    await this.add([{ tenantId, kind, count: 1 }]);
  }

  /**
   * Adds each row's count to today's counter, in one statement (a row per tenant and kind: one
   * statement cannot update a row twice). A tenant deleted since its refusals were counted is
   * skipped, so that its counts cannot fail everyone else's.
   */
  async add(rows: ReadonlyArray<{ tenantId: string; kind: string; count: number }>): Promise<void> {
    if (rows.length === 0) return;
    const counted = JSON.stringify(rows.map((row) => ({ tenant_id: row.tenantId, kind: row.kind, count: row.count })));
    await this.database.db.execute(sql`
      INSERT INTO limit_refusals (tenant_id, day, kind, count)
      SELECT counted.tenant_id, (now() AT TIME ZONE 'UTC')::date, counted.kind, counted.count
        FROM jsonb_to_recordset(${counted}::jsonb) AS counted(tenant_id uuid, kind text, count int)
       WHERE EXISTS (SELECT 1 FROM tenants WHERE tenants.id = counted.tenant_id)
      ON CONFLICT (tenant_id, day, kind) DO UPDATE SET count = limit_refusals.count + excluded.count`);
  }
}
