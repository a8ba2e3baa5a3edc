import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@loci/auth';
import { NotFoundError, UnauthenticatedError } from '@loci/common';
import { Settings, SETTINGS } from '@loci/config';
import { refTo } from '@loci/http';
import { LociMetrics } from '@loci/metrics';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Prometheus's scrape. Off unless LOCI_METRICS_TOKEN is set (404, as if there were no route:
 * the series name models and routes, which are nobody's business by default); then only a
 * bearer of that token, compared in constant time (README, Metrics).
 */
@ApiTags('health')
@Public()
@ApiBearerAuth('metrics_token')
@Controller()
export class MetricsController {
  private readonly token?: Buffer;

  constructor(
    @Inject(SETTINGS) settings: Settings,
    private readonly metrics: LociMetrics,
  ) {
    this.token = settings.metrics.token ? digest(settings.metrics.token) : undefined;
  }

  @Get('metrics')
  @ApiOperation({
    summary: 'Prometheus metrics of this API process',
    description:
      'Prometheus text format. Off (404) unless LOCI_METRICS_TOKEN is set; then send it as `Authorization: Bearer <token>`. ' +
      'Covers this process: its requests, model calls, refusals and in-process ingestion, plus the whole queue backlog and store health.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'The series, in the Prometheus text exposition format 0.0.4.',
    schema: refTo('PrometheusText', { type: 'string', description: 'Prometheus text exposition format 0.0.4' }),
  })
  @ApiUnauthorizedResponse({ description: 'No bearer token, or not LOCI_METRICS_TOKEN.' })
  @ApiNotFoundResponse({ description: 'LOCI_METRICS_TOKEN is not set: metrics are off.' })
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() res: Response): Promise<void> {
    if (!this.token) throw new NotFoundError('Metrics are off: set LOCI_METRICS_TOKEN to serve them.');
    const [scheme, presented] = (authorization ?? '').split(' ', 2);
    if (scheme?.toLowerCase() !== 'bearer' || !presented || !timingSafeEqual(digest(presented), this.token)) {
      throw new UnauthenticatedError('A bearer token (LOCI_METRICS_TOKEN) is required.');
    }
    const text = await this.metrics.registry.metrics();
    res.setHeader('Content-Type', this.metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.send(text);
  }
}
