import { Inject, Injectable } from '@nestjs/common';
import { and, desc, eq } from 'drizzle-orm';
import { toStorableJson } from '@loci/common';
import { Database, DATABASE } from '../database';
import { requestLogs } from '../schema';

export type NewRequestLog = Omit<typeof requestLogs.$inferInsert, 'id' | 'createdAt'>;

/** One row per question asked: who, on which surface, and the steps it took (trajectory). */
@Injectable()
export class RequestLogsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async insert(entry: NewRequestLog): Promise<void> {
    // The steps echo what the caller sent (a user_id, a dataset): jsonb refuses a NUL or an
    // unpaired surrogate, and a log must not fail the request it records.
    await this.database.db.insert(requestLogs).values({ ...entry, steps: toStorableJson(entry.steps) });
  }

  async byRequestId(tenantId: string, requestId: string) {
    const [row] = await this.database.db
      .select()
      .from(requestLogs)
      .where(and(eq(requestLogs.tenantId, tenantId), eq(requestLogs.requestId, requestId)))
      .orderBy(desc(requestLogs.id))
      .limit(1);
    return row;
  }
}
