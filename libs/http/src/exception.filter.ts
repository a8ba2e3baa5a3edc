import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import {
  ConflictError,
  DomainError,
  ForbiddenError,
  LimitExceededError,
  NotFoundError,
  STATUS_BY_ERROR_CODE,
  TenantSuspendedError,
  StoreUnavailableError,
  UnauthenticatedError,
  ValidationError,
} from '@loci/common';
import { errorSummary, isStoreUnavailable, loggableError } from '@loci/db';
import { codedErrorBody, FieldIssue, HttpProblem, renderErrorBody, validationStatus } from './error-body';
import { ErrorSurface, errorSurfaceOf } from './surfaces';
import { RequestWithId } from './request-id.middleware';

/**
 * The one place errors become responses. Domain errors map by type; Nest's HttpExceptions
 * keep their status; anything else is a 500 that says only "internal error" and the request
 * id (the stack goes to the log, never to the client).
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request & RequestWithId>();
    const res = http.getResponse<Response>();
    const surface = errorSurfaceOf(req.path ?? req.url);
    const problem = problemOf(exception, surface);
    if (problem.status >= 500) {
      // The record, never the error itself: a driver's message carries the statement's values.
      this.logger.error({ err: loggableError(exception), requestId: req.id }, `${problem.code}: ${errorSummary(exception)}`);
    }
    if (res.headersSent) return;
    if (exception instanceof LimitExceededError) {
      if (exception.retryAfterSeconds !== null) res.setHeader('Retry-After', String(exception.retryAfterSeconds));
      res.status(exception.status).json(limitBody(surface, exception, req.id));
      return;
    }
    if (isStoreUnavailable(exception)) {
      const unavailable = exception instanceof StoreUnavailableError ? exception : new StoreUnavailableError(exception);
      res.setHeader('Retry-After', String(unavailable.retryAfterSeconds));
      res.status(503).json(codedErrorBody(surface, unavailable.code, unavailable.message, req.id));
      return;
    }
    if (exception instanceof TenantSuspendedError) {
      res.status(exception.status).json(refusalBody(surface, exception.body, req.id));
      return;
    }
    if (isHealthReport(exception)) {
      // @nestjs/terminus reports a failed readiness check as a 503 whose body lists each probe.
      res.status(exception.getStatus()).json(exception.getResponse());
      return;
    }
    for (const [name, value] of Object.entries(problem.headers ?? {})) {
      // A challenge already written in front of the route (MCP's, naming its resource metadata) says more than the bare one.
      if (name === 'WWW-Authenticate' && res.getHeader(name) !== undefined) continue;
      res.setHeader(name, value);
    }
    res.status(problem.status).json(renderErrorBody(surface, problem, req.id));
  }

}

/** The status and code a thrown error answers with on a surface (for request logs, too). */
export function problemOf(exception: unknown, surface: ErrorSurface): HttpProblem {
  if (exception instanceof LimitExceededError) return { status: exception.status, code: exception.code, message: exception.message };
  if (isStoreUnavailable(exception)) return { status: 503, code: 'store_unavailable', message: 'The store is unavailable; try again shortly.' };
  if (exception instanceof TenantSuspendedError) return { status: exception.status, code: exception.code, message: exception.message };
  if (exception instanceof DomainError) return domainProblem(exception, surface);
  if (exception instanceof HttpException) return httpExceptionProblem(exception);
  return { status: 500, code: 'internal_error', message: 'Internal server error.' };
}

function domainProblem(error: DomainError, surface: ErrorSurface): HttpProblem {
  const base = { code: error.code, message: error.message };
  if (error instanceof ValidationError) {
    return { ...base, status: validationStatus(surface), issues: error.details as FieldIssue[] | undefined };
  }
  if (error instanceof NotFoundError) return { ...base, status: 404 };
  if (error instanceof ConflictError) {
    return { ...base, status: 409, ...(error.retryAfterSeconds ? { headers: { 'Retry-After': String(error.retryAfterSeconds) } } : {}) };
  }
  if (error instanceof UnauthenticatedError) {
    return { ...base, status: 401, headers: { 'WWW-Authenticate': 'Bearer' } };
  }
  if (error instanceof ForbiddenError) return { ...base, status: 403 };
  return { ...base, status: STATUS_BY_ERROR_CODE[error.code] ?? 400 };
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

function httpExceptionProblem(exception: HttpException): HttpProblem {
  const status = exception.getStatus();
  const response = exception.getResponse();
  const message =
    typeof response === 'string'
      ? response
      : Array.isArray((response as { message?: unknown }).message)
        ? ((response as { message: string[] }).message).join('; ')
        : String((response as { message?: unknown }).message ?? exception.message);
  return {
    status,
    code: CODES_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'error'),
    message: status >= 500 ? 'Internal server error.' : message,
  };
}

/** The contract's limit bodies: FastAPI `{"detail": {...}}`, gb `{"error": "...", ...}`. */
function limitBody(surface: ErrorSurface, error: LimitExceededError, requestId: string | undefined): unknown {
  return refusalBody(surface, error.body, requestId);
}

/** A refusal that names its reason as a code (`{"error": code, ...}`), in the surface's shape. */
function refusalBody(surface: ErrorSurface, body: { error: string } & Record<string, unknown>, requestId: string | undefined): unknown {
  switch (surface) {
    case 'fastapi':
      return { detail: body };
    case 'gb':
      return body;
    case 'generic': {
      const { error: code, ...details } = body;
      return { error: { code, message: code.replace(/_/g, ' '), ...details }, request_id: requestId ?? null };
    }
  }
}

function isHealthReport(exception: unknown): exception is HttpException {
  if (!(exception instanceof HttpException) || exception.getStatus() !== 503) return false;
  const body = exception.getResponse() as { status?: unknown; details?: unknown };
  return typeof body === 'object' && body.status === 'error' && typeof body.details === 'object';
}
