import { ForbiddenError } from '@loci/common';
import type { ApiKeyScope } from '@loci/db';

/**
 * An API key presented on a route that needs a scope the key was not given: a 403 (the key is
 * valid, the act is not permitted) whose message names the missing scope in every surface's shape.
 */
export class InsufficientScopeError extends ForbiddenError {
  constructor(readonly missing: ApiKeyScope[]) {
    super(`This API key lacks the ${missing.map((s) => `'${s}'`).join(' and ')} scope this route needs.`, { missing_scopes: missing });
  }
}
