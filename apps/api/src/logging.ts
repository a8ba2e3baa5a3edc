import type { Params } from 'nestjs-pino';
import type { Settings } from '@loci/config';
import type { RequestWithId } from '@loci/http';

/**
 * JSON logs through pino, one line per request with its id. Credentials never reach the log:
 * the headers that carry them are redacted, and bodies are not logged.
 */
export function loggerOptions(settings: Settings): Params {
  return {
    pinoHttp: {
      level: settings.logLevel,
      genReqId: (req) => (req as RequestWithId).id ?? 'unknown',
      customProps: (req) => ({ requestId: (req as RequestWithId).id, clientRequestId: (req as RequestWithId).clientRequestId }),
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'res.headers["set-cookie"]'],
        censor: '[redacted]',
      },
      autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' },
    },
  };
}
