import { UnauthenticatedError } from '@loci/common';

/**
 * What a passport strategy's outcome means for the request. The strategies refuse a credential
 * by returning false (passport's `fail`); an error reaches here only when the check itself threw:
 * the store down (503 store_unavailable) or a bug (500). Either goes on unchanged to the exception
 * filter: answering it with a 401 would tell a client whose key is valid to stop using it, and
 * would hide the fault from the operator's 5xx alerts.
 */
export function principalOrRefusal<T>(error: unknown, principal: T, refusal: string): T {
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the caught value itself, passed on unchanged to the exception filter
  if (error) throw error;
  if (!principal) throw new UnauthenticatedError(refusal);
  return principal;
}
