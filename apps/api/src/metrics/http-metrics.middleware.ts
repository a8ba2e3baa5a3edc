import type { NextFunction, Request, Response } from 'express';
import type { LociMetrics } from '@loci/metrics';
import { routeOf } from '../logging';

/**
 * Times every request into loci_http_request_duration_seconds under the pattern of the route
 * that matched (`/v1/documents/:documentId`), never its URL, which carries ids and dataset
 * names; a request no route matched counts as `unmatched`, whatever its path (Nest answers
 * those from a catch-all route of its own, `/{*path}`).
 */
const NEST_NOT_FOUND_ROUTE = '/{*path}';

export function httpMetricsMiddleware(metrics: LociMetrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      const route = routeOf(req);
      metrics.httpRequest(req.method, route === undefined || route === NEST_NOT_FOUND_ROUTE ? 'unmatched' : route, status, seconds);
    });
    next();
  };
}
