/**
 * Typed domain errors. Services throw these; the HTTP layer's exception filter maps each
 * `code` to a status and to the error shape of the surface that was called.
 */
export abstract class DomainError extends Error {
  abstract get code(): string;
  constructor(message: string, readonly details?: unknown) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  readonly code = 'validation_failed';
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
  /** Set by a conflict that passes on its own (work still in progress): sent as Retry-After. */
  readonly retryAfterSeconds?: number;
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

/**
 * The store (PostgreSQL or the embedded PGlite) cannot answer: its connection was lost or
 * refused, or it is shutting down. Nothing was wrong with the request, and nothing about the
 * caller is known (an API key could not be checked, so it is neither valid nor invalid): a 503
 * with Retry-After, never a 401 or a 500. `cause` keeps the driver's error for the log.
 */
export class StoreUnavailableError extends DomainError {
  readonly code = 'store_unavailable';
  readonly retryAfterSeconds = 5;

  constructor(override readonly cause?: unknown) {
    super('The store is unavailable; try again shortly.');
  }
}

/**
 * The client closed the connection before its answer was ready (a request that was waiting for
 * something gives up): nobody reads the answer; 499, as proxies log it, never a 5xx.
 */
export class ClientClosedRequestError extends DomainError {
  readonly code = 'client_closed_request';

  constructor() {
    super('The client closed the connection before the answer.');
  }
}

/** Status of error codes raised outside this package (e.g. the model layer's). */
export const STATUS_BY_ERROR_CODE: Readonly<Record<string, number>> = {
  client_closed_request: 499,
  model_not_configured: 503,
  model_call_failed: 502,
  unsupported_media_type: 415,
  unreadable_file: 422,
  payload_too_large: 413,
  upload_too_large: 413,
};

/**
 * A request refused by a spend limit (cost cap, platform budget, daily quota, concurrency), a
 * rate or an ingestion quota, or because the limits cannot be checked. `body` is the contract's
 * detail object (`{"error": "cost_cap_exceeded", "cap": 5, "spent": 5.01, "retry_after": 3600}`); each surface
 * wraps it in its own shape, and `retryAfterSeconds` becomes the Retry-After header.
 */
export class LimitExceededError extends DomainError {
  constructor(
    readonly status: 402 | 413 | 429 | 503,
    readonly body: { error: string } & Record<string, unknown>,
    /** Null for a refusal that does not pass with time (a full storage quota): no Retry-After. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(`${body.error}`);
  }

  get code(): string {
    return this.body.error;
  }
}
