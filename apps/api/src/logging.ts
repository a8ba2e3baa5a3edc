import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import { logDestination } from '@loci/common';
import type { Settings } from '@loci/config';
import { errorLogSerializer } from '@loci/db';
import type { RequestWithId } from '@loci/http';

/**
 * JSON logs through pino, one line per request with its id. Credentials never reach the log:
 * the headers that carry them are redacted. Neither does tenant text: bodies are not logged, a
 * request's URL is cut to its first two segments and the query's names (gb user ids and dataset
 * names travel in paths and queries) beside the matched route's pattern, and an error is logged
 * as its record (errorLogSerializer), never with drizzle's statement parameters.
 */
export function loggerOptions(settings: Settings, destination?: NodeJS.WritableStream): Params {
  return {
    pinoHttp: [
      {
        level: settings.logLevel,
        genReqId: (req) => (req as RequestWithId).id ?? 'unknown',
        customProps: (req) => ({ requestId: (req as RequestWithId).id, clientRequestId: (req as RequestWithId).clientRequestId }),
        serializers: { err: errorLogSerializer, error: errorLogSerializer, req: requestLogSerializer },
        // The route is known only once a handler matched; the request line is written after it.
        customSuccessObject: (req, _res, fields) => ({ ...fields, route: routeOf(req) }),
        customErrorObject: (req, _res, _error, fields) => ({ ...fields, route: routeOf(req) }),
        redact: {
          paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
          censor: '[redacted]',
        },
        autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      },
      logDestination(settings.logFormat, destination),
    ],
  };
}

type SerializedRequest = { id?: unknown; method?: unknown; headers?: unknown; remoteAddress?: unknown; raw?: IncomingMessage };

/**
 * pino's request record with the URL cut by loggableUrl() and no query or params objects. pino
 * serializes it when the request arrives, before any route matched.
 */
function requestLogSerializer(req: SerializedRequest): Record<string, unknown> {
  return { id: req.id, method: req.method, url: req.raw ? loggableUrl(req.raw) : undefined, headers: req.headers, remoteAddress: req.remoteAddress };
}

type RoutedRequest = IncomingMessage & { originalUrl?: string; baseUrl?: string; route?: { path?: unknown } };

/**
 * The path's first two segments (`/v1/documents`, `/v1/gb`), which no route lets a client
 * choose, and the query's parameter names without their values (`?limit=…`). Later segments
 * can be gb dataset names; the request line's `route` names the pattern they matched.
 */
export function loggableUrl(req: RoutedRequest): string {
  const [path, query] = (req.originalUrl ?? req.url ?? '').split('?', 2);
  const segments = path.split('/').filter(Boolean);
  const head = `/${segments.slice(0, 2).map(encodeURIComponent).join('/')}${segments.length > 2 ? '/…' : ''}`;
  const names = query ? [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name.slice(0, 40))}=…`) : [];
  return names.length > 0 ? `${head}?${names.join('&')}` : head;
}

/** The matched route's pattern (`/v1/gb/datasets/:name`), or undefined when none matched. */
export function routeOf(req: RoutedRequest): string | undefined {
  return typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : undefined;
}
