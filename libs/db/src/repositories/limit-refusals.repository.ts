import { Inject, Injectable } from '@nestjs/common';
import { sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { limitRefusals } from '../schema';

/** Requests refused by a spend limit, counted per tenant, UTC day (the database's) and kind. */
@Injectable()
export class LimitRefusalsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** One more refusal of `kind` today; an upsert, so concurrent refusals all count. */
  async record(tenantId: string, kind: string): Promise<void> {
    await this.database.db
      .insert(limitRefusals)
      .values({ tenantId, day: sql`(now() AT TIME ZONE 'UTC')::date`, kind, count: 1 })
      .onConflictDoUpdate({
        target: [limitRefusals.tenantId, limitRefusals.day, limitRefusals.kind],
        set: { count: sql`${limitRefusals.count} + 1` },
      });
  }
}
