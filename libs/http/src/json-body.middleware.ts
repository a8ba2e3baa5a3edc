import { json } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpProblem, renderErrorBody, validationStatus } from './error-body';
import { errorSurfaceOf, jsonBodyLimitOf } from './surfaces';
import { RequestWithId } from './request-id.middleware';

/**
 * Parses JSON bodies with a per-route size limit and answers parse failures itself, in the
 * error dialect of the route: body-parser's errors happen before Nest's exception filters.
 */
export function jsonBodyMiddleware(): RequestHandler {
  const parsers = new Map<string, RequestHandler>();
  const parserFor = (limit: string) => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = json({ limit, type: ['application/json', 'application/*+json'] });
      parsers.set(limit, parser);
    }
    return parser;
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const limit = jsonBodyLimitOf(req.path);
    parserFor(limit)(req, res, (error?: unknown) => {
      if (!error) return next();
      const surface = errorSurfaceOf(req.path);
      const problem = bodyProblem(error, limit);
      // FastAPI answers undecodable JSON with a 422 validation error; the other surfaces say 400.
      const status = problem.code === 'malformed_json' ? validationStatus(surface) : problem.status;
      res.status(status).json(renderErrorBody(surface, problem, (req as RequestWithId).id));
    });
  };
}

function bodyProblem(error: unknown, limit: string): HttpProblem {
  const type = (error as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return { status: 413, code: 'payload_too_large', message: `Request body is larger than ${humanLimit(limit)}.` };
    case 'entity.parse.failed':
      return {
        status: 400,
        code: 'malformed_json',
        message: 'Request body is not valid JSON.',
        issues: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
      };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { status: 415, code: 'unsupported_encoding', message: 'Unsupported request body encoding.' };
    default:
      return { status: 400, code: 'bad_request', message: 'Request body could not be read.' };
  }
}

const humanLimit = (limit: string) => limit.replace(/kb$/i, ' KiB').replace(/mb$/i, ' MiB');
