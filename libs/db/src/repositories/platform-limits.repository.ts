import { Inject, Injectable } from '@nestjs/common';
import { Database, DATABASE } from '../database';
import { platformLimits } from '../schema';

/** The platform-wide limits (one row). Spend control caches it per process under the limits version (LimitRows); the route that sets it bumps the version. */
@Injectable()
export class PlatformLimitsRepository {
  constructor(@Inject(DATABASE) private readonly database: Database) {}

  async get(): Promise<{ dailyCostCapMicros: number | null }> {
    const [row] = await this.database.db.select().from(platformLimits);
    return { dailyCostCapMicros: row?.dailyCostCapMicros ?? null };
  }

  async set(dailyCostCapMicros: number | null): Promise<void> {
    await this.database.db
      .insert(platformLimits)
      .values({ id: 1, dailyCostCapMicros })
      .onConflictDoUpdate({ target: platformLimits.id, set: { dailyCostCapMicros, updatedAt: new Date() } });
  }
}
