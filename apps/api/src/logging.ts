import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { Settings } from '@loci/config';
import { errorLogSerializer } from '@loci/db';
import type { RequestWithId } from '@loci/http';

/**
 * JSON logs through pino, one line per request with its id. Credentials never reach the log:
 * the headers that carry them are redacted. Neither does tenant text: bodies are not logged, a
 * request's URL is its route's pattern with the query's names only (gb user ids and dataset
 * names travel in both), and an error is logged as its record (errorLogSerializer), never with
 * drizzle's statement parameters.
 */
export function loggerOptions(settings: Settings, destination?: NodeJS.WritableStream): Params {
  return {
    pinoHttp: [
      {
        level: settings.logLevel,
        genReqId: (req) => (req as RequestWithId).id ?? 'unknown',
        customProps: (req) => ({ requestId: (req as RequestWithId).id, clientRequestId: (req as RequestWithId).clientRequestId }),
        serializers: { err: errorLogSerializer, error: errorLogSerializer, req: requestLogSerializer },
        redact: {
          paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
          censor: '[redacted]',
        },
        autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
      },
      destination ?? process.stdout,
    ],
  };
}

type SerializedRequest = { id?: unknown; method?: unknown; headers?: unknown; remoteAddress?: unknown; raw?: IncomingMessage };

/** pino's request record with the URL replaced by loggableUrl() and no query or params objects. */
function requestLogSerializer(req: SerializedRequest): Record<string, unknown> {
  return { id: req.id, method: req.method, url: req.raw ? loggableUrl(req.raw) : undefined, headers: req.headers, remoteAddress: req.remoteAddress };
}

type RoutedRequest = IncomingMessage & { originalUrl?: string; baseUrl?: string; route?: { path?: unknown } };

/**
 * The route's pattern (`/v1/gb/datasets/:name`) rather than the path, and the query's parameter
 * names without their values. A path no route matched keeps its first two segments.
 */
export function loggableUrl(req: RoutedRequest): string {
  const [path, query] = (req.originalUrl ?? req.url ?? '').split('?', 2);
  const pattern =
    typeof req.route?.path === 'string'
      ? `${req.baseUrl ?? ''}${req.route.path}`
      : unmatchedPath(path);
  const names = query ? [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name.slice(0, 40))}=…`) : [];
  return names.length > 0 ? `${pattern}?${names.join('&')}` : pattern;
}

function unmatchedPath(path: string): string {
  const segments = path.split('/').filter(Boolean);
  return `/${segments.slice(0, 2).join('/')}${segments.length > 2 ? '/…' : ''}`;
}
