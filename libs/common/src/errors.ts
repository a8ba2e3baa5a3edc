/**
 * Typed domain errors. Services throw these; the HTTP layer's exception filter maps each
 * `code` to a status and to the error shape of the surface that was called.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
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
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}
