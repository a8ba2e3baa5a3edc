import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, refTo } from '@loci/http';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { Public } from '@loci/auth';
import { Database, DATABASE, MIGRATIONS_FOLDER, migrationsApplied, ReadRouter } from '@loci/db';
import { KV_STORE, KvStore } from '@loci/kv';

const probeStates = { type: 'object', additionalProperties: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['up', 'down'] } }, additionalProperties: true } };
/** @nestjs/terminus's report: every probe under `details`, the failed ones also under `error`. */
const HEALTH_REPORT = refTo('HealthReport', {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok', 'error', 'shutting_down'] }, info: probeStates, error: probeStates, details: probeStates },
});

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
    private readonly reads: ReadRouter,
  ) {}

  @Get('healthz')
  @ApiOperation({
    summary: 'Liveness',
    description: 'Answers 200 while the process runs and 503 once it is shutting down; checks nothing else.',
  })
  @ApiOkResponse({ description: 'The process answers.', schema: HEALTH_REPORT })
  @ApiErrors({ 503: { description: 'The process is shutting down.', schema: HEALTH_REPORT } })
  @HealthCheck()
  liveness() {
    return this.health.check([]);
  }

  @Get('readyz')
  @ApiOperation({
    summary: 'Readiness',
    description:
      "Checks the store, that every migration is applied, and the limit store (Redis or in-process); 503 with each probe's state when one is down.",
  })
  @ApiErrors({ 503: { description: 'A probe is down: each probe with its state.', schema: HEALTH_REPORT } })
  @ApiOkResponse({ description: 'Every probe is up.', schema: HEALTH_REPORT })
  @HealthCheck()
  // With read replicas (DATABASE_READ_URL) the report also has `replicas`: each one's state and lag.
  readiness() {
    return this.health.check([
      () => this.probe('store', async () => this.database.ping(), { driver: this.database.kind }),
      () => this.probe('migrations', async () => this.assertMigrated()),
      () => this.probe('limits', async () => this.kv.ping(), { driver: this.kv.kind }),
      ...(this.reads.routes ? [() => this.replicas()] : []),
    ]);
  }

  /** Reported, not required: reads fall back to the primary, so no replica state makes the API unready. */
  private replicas() {
    const replicas = this.reads.states().map(({ name, status, lagMs, reason }) => ({ name, status, lag_ms: lagMs, ...(reason ? { reason } : {}) }));
    return this.indicator.check('replicas').up({ serving: replicas.filter((r) => r.status === 'up').length, replicas });
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
