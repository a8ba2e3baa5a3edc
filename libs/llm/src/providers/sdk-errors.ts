import { ModelCallError, ModelCallFailure } from '../model-call.error';
import type { ProviderName } from '../model.types';

/**
 * Both SDKs are generated from the same template (Stainless), so their errors have the same
 * shape under different classes: one mapping serves both, given the SDK's classes.
 */
type ErrorClass = abstract new (...args: never[]) => Error;

export interface SdkErrorClasses {
  /** The SDK's base error: thrown before a request is sent (bad options, missing credentials). */
  base: ErrorClass;
  /** Errors with an HTTP `status` (after the SDK's own retries gave up). */
  api: abstract new (...args: never[]) => Error & { status: number | undefined };
  connection: ErrorClass;
  connectionTimeout: ErrorClass;
}

export interface CallContext {
  provider: ProviderName;
  model: string;
  stage: string;
}

/** The failure kind for an HTTP status the SDK stopped on (it has already retried what it retries). */
export function failureForStatus(status: number): ModelCallFailure {
  if (status === 408) return 'timeout';
  if (status === 429) return 'rate_limited';
  // 409 is retried by the SDKs as a lock timeout: still failing after retries, it is transient.
  if (status >= 500 || status === 409) return 'unavailable';
  return 'rejected';
}

export function toModelCallError(error: unknown, sdk: SdkErrorClasses, context: CallContext, signal?: AbortSignal): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (signal?.aborted) {
    const what = `${context.provider} ${context.model} (${context.stage})`;
    return new ModelCallError('aborted', context.provider, context.model, context.stage, `${what}: the caller went away`, undefined, { cause: error });
  }
  const fail = (failure: ModelCallFailure, what: string, status?: number) =>
    new ModelCallError(
      failure,
      context.provider,
      context.model,
      context.stage,
      `${context.provider} ${context.model} (${context.stage}): ${what}: ${(error as { message?: unknown } | null)?.message ?? String(error)}`,
      status,
      { cause: error },
    );

  // Subclass before superclass: a timeout is a connection error, a connection error an API error.
  if (error instanceof sdk.connectionTimeout) return fail('timeout', 'no answer within the timeout');
  if (error instanceof sdk.connection) return fail('unavailable', 'connection failed');
  if (error instanceof sdk.api && error.status !== undefined) {
    return fail(failureForStatus(error.status), `HTTP ${error.status}`, error.status);
  }
  // A 200 whose body claims JSON but is not: the SDK lets JSON.parse's error through. Checked by
  // name: fetch's body parser can live in another realm (jest's sandbox), where instanceof fails.
  if ((error as { name?: unknown } | null)?.name === 'SyntaxError') return fail('bad_output', 'the reply was not valid JSON');
  if (error instanceof sdk.base) return fail('rejected', 'the SDK refused the request');
  return fail('unavailable', 'the call failed');
}
