import { Module } from '@nestjs/common';
import { IngestModule } from '@loci/ingest';
import { MetricsModule } from '@loci/metrics';
import { MetricsController } from './metrics.controller';
import { ScrapeGauges } from './scrape-gauges';

/** GET /metrics and the series only the API reads (README, Metrics). */
@Module({
  imports: [MetricsModule, IngestModule],
  controllers: [MetricsController],
  providers: [ScrapeGauges],
})
export class ApiMetricsModule {}
