import { ErrorSurface } from './surfaces';

/** One field problem, in FastAPI's vocabulary (loc/msg/type) so /v1/query can use it as is. */
export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface HttpProblem {
  status: number;
  code: string;
  message: string;
  issues?: FieldIssue[];
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

/** Renders a problem in the dialect of the surface that was called. */
export function renderErrorBody(surface: ErrorSurface, problem: HttpProblem, requestId: string | undefined): unknown {
  switch (surface) {
    case 'fastapi':
      if (problem.issues && problem.issues.length > 0) return { detail: problem.issues };
      return { detail: problem.message };
    case 'gb':
      // gb validation messages name their field themselves ("user_id is required").
      return { error: problem.issues?.length ? problem.issues.map((i) => i.msg).join('; ') : problem.message };
    case 'generic':
      return {
        error: {
          code: problem.code,
          message: problem.message,
          ...(problem.issues && problem.issues.some((i) => i.loc.length > 1)
            ? { details: problem.issues.map((i) => ({ field: i.loc.slice(1).join('.'), message: i.msg })) }
            : {}),
        },
        request_id: requestId ?? null,
      };
  }
}

/** Validation problems are 422 on the FastAPI surface (as FastAPI does) and 400 elsewhere. */
export function validationStatus(surface: ErrorSurface): number {
  return surface === 'fastapi' ? 422 : 400;
}

export function describeIssues(issues: FieldIssue[]): string {
  return issues
    .map((issue) => {
      const field = issue.loc.slice(1).join('.');
      return field ? `${field}: ${issue.msg}` : issue.msg;
    })
    .join('; ');
}

/**
 * A refusal a client acts on by its code alone (the store unavailable), shaped as the
 * contract's limit refusals are: FastAPI `{"detail": {"error": code}}`, gb `{"error": code}`.
 */
export function codedErrorBody(surface: ErrorSurface, code: string, message: string, requestId: string | undefined): unknown {
  switch (surface) {
    case 'fastapi':
      return { detail: { error: code } };
    case 'gb':
      return { error: code };
    case 'generic':
      return { error: { code, message }, request_id: requestId ?? null };
  }
}
