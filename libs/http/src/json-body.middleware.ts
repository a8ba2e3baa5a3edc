import { json } from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpProblem, renderErrorBody, validationStatus } from './error-body';
import { ErrorSurface, errorSurfaceOf, jsonBodyLimitOf } from './surfaces';
import { RequestWithId } from './request-id.middleware';

/**
 * Parses JSON bodies with a per-route size limit and answers parse failures itself, in the
 * error dialect of the route: body-parser's errors happen before Nest's exception filters.
 * A route that reads its own body (/mcp: its transport) is left alone.
 */
export function jsonBodyMiddleware(): RequestHandler {
  const parsers = new Map<string, RequestHandler>();
  const parserFor = (limit: string, anyContentType: boolean) => {
    const key = `${limit}:${anyContentType}`;
    let parser = parsers.get(key);
    if (!parser) {
      parser = json({ limit, type: anyContentType ? () => true : ['application/json', 'application/*+json'] });
      parsers.set(key, parser);
    }
    return parser;
  };

  return (req: Request, res: Response, next: NextFunction) => {
    const limit = jsonBodyLimitOf(req.path);
    if (limit === undefined) return next(); // the route reads its own body
    const surface = errorSurfaceOf(req.path);
    parserFor(limit, readsAnyContentTypeAsJson(surface))(req, res, (error?: unknown) => {
      if (!error) return next();
      const problem = bodyProblem(error, limit);
      // FastAPI answers undecodable JSON with a 422 validation error; the other surfaces say 400.
      const status = problem.code === 'malformed_json' ? validationStatus(surface) : problem.status;
      // gb joins issue messages into its one string; FastAPI's "JSON decode error" would not
      // tell a curl user that the body must be JSON, the problem's own message does.
      const rendered = surface === 'gb' ? { ...problem, issues: undefined } : problem;
      res.status(status).json(renderErrorBody(surface, rendered, (req as RequestWithId).id));
    });
  };
}

/**
 * The gb contract's own example is `curl -d '{json}'`, which sends
 * `application/x-www-form-urlencoded`, and its reference server reads the body as JSON
 * whatever its declared type (or none), so /v1/gb/* does too. Elsewhere a body of another
 * type is left unparsed and fails validation.
 */
function readsAnyContentTypeAsJson(surface: ErrorSurface): boolean {
  return surface === 'gb';
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
