import { Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { describeRedisTarget, redisTargetOf } from '@loci/kv';
import { PlatformLimitsRepository, QuestionCountsRepository, SHARED_WRITE_NOTES, SpendLedgerRepository, TenantsRepository } from '@loci/db';
import { SPEND_GUARD } from '@loci/llm';
import { LIMIT_STORE, LimitStore } from '../limit-store';
import { openLimitStore } from '../open-limit-store';
import { RequestRates } from '../rates/request-rates.service';
import { SpendControl } from './spend-control.service';

@Injectable()
class LimitStoreLifecycle implements OnApplicationShutdown {
  private readonly logger = new Logger('SpendControl');

  constructor(
    @Inject(LIMIT_STORE) private readonly store: LimitStore,
    private readonly spend: SpendControl,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.spend.close();
    const ended = await this.spend.endOutstanding();
    if (ended > 0) this.logger.warn(`shutdown: ended ${ended} slot(s) and reservation(s) of requests still running`);
    await this.store.close();
  }
}

/**
 * Spend control: the limit store (Redis when REDIS_URL is set, else in-process) and the
 * SpendControl service, which is also the model layer's SPEND_GUARD; the store also keeps the
 * read replicas' shared write notes (SHARED_WRITE_NOTES).
 */
@Global()
@Module({
  providers: [
    {
      provide: LIMIT_STORE,
      inject: [SETTINGS],
      useFactory: (settings: Settings): LimitStore => {
        const target = redisTargetOf(settings.redis);
        const store = openLimitStore(target);
        new Logger('SpendControl').log(
          target ? `limits in ${describeRedisTarget(target)}` : 'limits in process: they hold for this one process only',
        );
        return store;
      },
    },
    LimitStoreLifecycle,
    // The read replicas' router (libs/db) shares graphs' write notes through it: read-your-writes across API instances.
    { provide: SHARED_WRITE_NOTES, inject: [LIMIT_STORE], useFactory: (store: LimitStore) => store.writeNotes },
    {
      provide: SpendControl,
      inject: [LIMIT_STORE, TenantsRepository, PlatformLimitsRepository, SpendLedgerRepository, SETTINGS, QuestionCountsRepository],
      useFactory: (
        store: LimitStore,
        tenants: TenantsRepository,
        platform: PlatformLimitsRepository,
        ledger: SpendLedgerRepository,
        settings: Settings,
        questions: QuestionCountsRepository,
      ) => new SpendControl(store, tenants, platform, ledger, settings.limits, questions),
    },
    { provide: SPEND_GUARD, useExisting: SpendControl },
    RequestRates,
  ],
  exports: [LIMIT_STORE, SHARED_WRITE_NOTES, SpendControl, SPEND_GUARD, RequestRates],
})
export class QuotaModule {}
