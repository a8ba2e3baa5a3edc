import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '@loci/auth';
import { Database, DATABASE, MIGRATIONS_FOLDER, migrationsApplied } from '@loci/db';
import { KV_STORE, KvStore } from '@loci/kv';

/** Liveness (the process answers) and readiness (its store and limit store work). */
@ApiTags('health')
@Public()
@Controller()
export class HealthController {
  private migrationsConfirmed = false;

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicator: HealthIndicatorService,
    @Inject(DATABASE) private readonly database: Database,
    @Inject(KV_STORE) private readonly kv: KvStore,
    @Inject(MIGRATIONS_FOLDER) private readonly migrationsFolder: string,
  ) {}

  @Get('healthz')
  @HealthCheck()
  liveness() {
    return this.health.check([]);
  }

  @Get('readyz')
  @HealthCheck()
  readiness() {
    return this.health.check([
      () => this.probe('store', async () => this.database.ping(), { driver: this.database.kind }),
      () => this.probe('migrations', async () => this.assertMigrated()),
      () => this.probe('limits', async () => this.kv.ping(), { driver: this.kv.kind }),
    ]);
  }

  private async probe(key: string, check: () => Promise<void>, details: Record<string, string> = {}) {
    const indicator = this.indicator.check(key);
    try {
      await check();
      return indicator.up(details);
    } catch (error) {
      return indicator.down({ ...details, message: error instanceof Error ? error.message : 'unavailable' });
    }
  }

  /** Migrations never un-apply, so once confirmed the check stops querying. */
  private async assertMigrated(): Promise<void> {
    if (this.migrationsConfirmed) return;
    this.migrationsConfirmed = await migrationsApplied(this.database, this.migrationsFolder);
    if (!this.migrationsConfirmed) throw new Error('pending migrations');
  }
}
