import { Inject, Injectable } from '@nestjs/common';
import { and, eq, sql } from 'drizzle-orm';
import { Database, DATABASE } from '../database';
import { questionCounts } from '../schema';

/**
 * The daily question quota on record (see `questionCounts`): the truth the limit store's quota
 * counter is rebuilt from. `day` is `YYYY-MM-DD` of the limit store's clock, the day the
 * counter's key is named for, never the database's now().
 */
@Injectable()
export class QuestionCountsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  /** Questions of the tenant counted that day and not given back. */
  async count(tenantId: string, day: string): Promise<number> {
    const [row] = await this.database.db
      .select({ count: questionCounts.count })
      .from(questionCounts)
      .where(and(eq(questionCounts.tenantId, tenantId), eq(questionCounts.day, day)));
    return row?.count ?? 0;
  }

  /** One more question counted; an upsert, so concurrent admissions all count. */
  async add(tenantId: string, day: string): Promise<void> {
    await this.database.db
      .insert(questionCounts)
      .values({ tenantId, day, count: 1 })
      .onConflictDoUpdate({ target: [questionCounts.tenantId, questionCounts.day], set: { count: sql`${questionCounts.count} + 1` } });
  }

  /** One question given back (never below 0). */
  async giveBack(tenantId: string, day: string): Promise<void> {
    await this.database.db
      .update(questionCounts)
      .set({ count: sql`greatest(${questionCounts.count} - 1, 0)` })
      .where(and(eq(questionCounts.tenantId, tenantId), eq(questionCounts.day, day)));
  }
}
