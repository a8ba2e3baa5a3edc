import { Global, Logger, Module } from '@nestjs/common';
import { Settings, SETTINGS } from '@loci/config';
import { InferencesRepository } from '@loci/db';
import { LociMetrics } from '@loci/metrics';
import { ModelGateway } from './gateway/model-gateway';
import { ModelRouter } from './gateway/model-router';
import { SPEND_GUARD, SpendGuard } from './gateway/spend-guard';
import { ProviderRegistry } from './gateway/provider-registry';
import { PriceTable } from './metering/prices';
import { STAGES } from './model.types';
import { OwnKeysService } from './own-keys/own-keys.service';
import { StageRunner } from './stages/stage-runner';
import { LOCAL_TEXT_WORK, type LocalTextWork } from './local/local-text-work';

/**
 * The model layer. Building the router checks every configured stage model (well-formed,
 * priced, provider configured), so a bad model setting stops the process at boot.
 */
@Global()
@Module({
  providers: [
    { provide: PriceTable, inject: [SETTINGS], useFactory: (s: Settings) => PriceTable.load(s.llm.pricesFile) },
    {
      provide: ModelRouter,
      inject: [SETTINGS, PriceTable],
      useFactory: (s: Settings, prices: PriceTable) => {
        const router = new ModelRouter(s.llm, prices);
        new Logger('ModelRouter').log(STAGES.map((stage) => `${stage}=${router.choose(stage).spec}`).join(' '));
        return router;
      },
    },
    {
      provide: ProviderRegistry,
      inject: [SETTINGS, { token: LOCAL_TEXT_WORK, optional: true }],
      useFactory: (s: Settings, localWork?: LocalTextWork) => new ProviderRegistry(s.llm, localWork),
    },
    {
      provide: ModelGateway,
      inject: [
        ModelRouter,
        ProviderRegistry,
        PriceTable,
        InferencesRepository,
        SETTINGS,
        { token: SPEND_GUARD, optional: true },
        { token: LociMetrics, optional: true },
      ],
      useFactory: (
        router: ModelRouter,
        registry: ProviderRegistry,
        prices: PriceTable,
        ledger: InferencesRepository,
        s: Settings,
        spendGuard?: SpendGuard,
        metrics?: LociMetrics,
      ) => new ModelGateway(router, registry, prices, ledger, s.llm, spendGuard, metrics),
    },
    {
      provide: StageRunner,
      // The ingestion module runs the local stages on worker threads; without it they run inline.
      inject: [ModelGateway, SETTINGS, { token: LOCAL_TEXT_WORK, optional: true }],
      useFactory: (gateway: ModelGateway, s: Settings, localWork?: LocalTextWork) =>
        new StageRunner(gateway, localWork, s.llm.localEmbeddingDimensions),
    },
    OwnKeysService,
  ],
  exports: [PriceTable, ModelRouter, ModelGateway, StageRunner, OwnKeysService],
})
export class LlmModule {}
