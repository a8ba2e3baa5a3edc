import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';
export const CLIENT_REQUEST_ID_HEADER = 'X-Client-Request-Id';
// A caller's id is kept only when it is short and plain, so it is safe to log and echo.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type RequestWithId = Request & { id?: string; clientRequestId?: string };

/**
 * Gives every request its own id (a UUID), returned in X-Request-Id. The id keys the
 * inference ledger and the request log, so it is never taken from the caller: a reused id
 * would merge two requests' spend. A caller's own X-Request-Id, when sane, is kept beside it
 * (logged, and echoed as X-Client-Request-Id) for correlation.
 */
export function requestIdMiddleware(req: RequestWithId, res: Response, next: NextFunction): void {
  req.id = randomUUID();
  res.setHeader(REQUEST_ID_HEADER, req.id);
  const incoming = req.header(REQUEST_ID_HEADER);
  if (incoming && ACCEPTABLE_REQUEST_ID.test(incoming)) {
    req.clientRequestId = incoming;
    res.setHeader(CLIENT_REQUEST_ID_HEADER, incoming);
  }
  next();
}
