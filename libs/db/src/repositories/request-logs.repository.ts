import { Inject, Injectable } from '@nestjs/common';
import { and, desc, eq } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { requestLogs } from '../schema';

export type NewRequestLog = Omit<typeof requestLogs.$inferInsert, 'id' | 'createdAt'>;

/** One row per question asked: who, on which surface, and the steps it took (trajectory). */
@Injectable()
export class RequestLogsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async insert(entry: NewRequestLog): Promise<void> {
    await this.database.db.insert(requestLogs).values(entry);
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
